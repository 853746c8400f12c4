"""The commands of infra/deploy/deploy.py (its docstring describes them), by topic:

    common      the repository root, DRY_RUN, Stop, log and running programs (sam)
    samconfig   the config env's section of samconfig.toml and its parameter overrides
    answers     the questions of `deploy`, their variables, checks and defaults
    deploy      `deploy`: sam build + sam deploy
    stack       the deployed stack's lookups, `smoke` and `destroy`
"""
