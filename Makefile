# The blog backend. `make dev` serves the whole API locally; `make test` runs everything.
# Tools the tests need install into .tools/ (git-ignored), pinned in infra/emulators/install.sh.

SHELL := /bin/bash
CARGO ?= cargo
EMULATORS := infra/emulators

# Local administrator for `make dev` (override on the command line or in the environment).
BLOG_ADMIN_USERNAME ?= admin
BLOG_ADMIN_PASSWORD ?= Admin12345
BLOG_ADMIN_EMAIL ?= admin@example.com
export BLOG_ADMIN_USERNAME BLOG_ADMIN_PASSWORD BLOG_ADMIN_EMAIL

.PHONY: dev test tools build fmt-check clippy unit-tests emulator-tests lint-template create-admin clean

## dev: serve every API area on http://127.0.0.1:3000 on the embedded adapters (data in .data/)
dev:
	$(CARGO) run -p local-gateway --bin blog-gateway -- serve

## create-admin: create the administrator from BLOG_ADMIN_* without serving
create-admin:
	$(CARGO) run -p local-gateway --bin blog-gateway -- create-admin

## test: formatting, lints, unit and API tests on both adapter sets, template lint
test: tools fmt-check clippy unit-tests emulator-tests lint-template

## tools: install the pinned emulators and linters into .tools/
tools:
	$(EMULATORS)/install.sh

build:
	$(CARGO) build --workspace --all-targets --all-features

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --all-features -- -D warnings

## unit-tests: everything that needs no emulator (embedded adapters, in-process)
unit-tests:
	$(CARGO) test --workspace --all-features

## emulator-tests: the tests marked as needing emulators, against DynamoDB Local
emulator-tests:
	$(EMULATORS)/with-emulators.sh $(CARGO) test --workspace --all-features -- --ignored

## lint-template: cfn-lint on the SAM template
lint-template:
	.tools/venv/bin/cfn-lint template.yaml

## bench: DynamoDB calls and capacity per endpoint at 1,000 and 10,000 articles (docs/performance.md)
# Dev profile on purpose: a release build (LTO, one codegen unit) of the AWS SDKs was still
# compiling after 10 minutes here (2 CPUs), and the dev profile already optimises the Markdown
# pipeline; DynamoDB Local, not this process, bounds the seeding. Its own emulator state dir, so
# a concurrent `make test` neither reuses nor stops the emulators during the long run.
.PHONY: bench
bench: tools
	EMULATORS_STATE_DIR=$(CURDIR)/.emulators/bench $(EMULATORS)/with-emulators.sh \
		$(CARGO) run -p bench --bin capacity -- --articles 1000,10000 --out docs/performance.md

clean:
	$(CARGO) clean
	rm -rf .emulators
