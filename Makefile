# The blog backend. `make dev` serves the whole API locally; `make test` runs everything.
# Tools the tests need install into .tools/ (git-ignored), pinned in infra/emulators/install.sh.

SHELL := /bin/bash
CARGO ?= cargo
EMULATORS := infra/emulators

# The workspace's own programs (blog-stack, blog-gateway, blog-smoke) run as `cargo run` builds
# them, each with its own features, unless BLOG_BINS names a directory where they are built:
# `make test` gives the test build's (`cargo test --workspace --all-features` links all three),
# so its later steps do not compile the workspace again for each program's features.
BLOG_BINS ?=
export BLOG_BINS
program = $(if $(BLOG_BINS),$(BLOG_BINS)/$(2),$(CARGO) run -q -p $(1) --bin $(2) --)
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)

# Local administrator for `make dev` (override on the command line or in the environment).
BLOG_ADMIN_USERNAME ?= admin
BLOG_ADMIN_PASSWORD ?= Admin12345
BLOG_ADMIN_EMAIL ?= admin@example.com
export BLOG_ADMIN_USERNAME BLOG_ADMIN_PASSWORD BLOG_ADMIN_EMAIL

.PHONY: dev stack test tools build fmt-check clippy unit-tests emulator-tests lint-template create-admin clean

## dev: serve every API area on http://127.0.0.1:3000 on the embedded adapters (data in .data/)
dev:
	$(CARGO) run -p local-gateway --bin blog-gateway -- serve

## stack: the stack as template.yaml deploys it, on http://127.0.0.1:3000 (BLOG_PORT): each
## function binary built alone as `make package` builds it, under cargo-lambda's Runtime API
## emulator with the template's environment, behind an API Gateway front, on DynamoDB Local,
## moto and s3s-fs (reused when running). Ctrl-C stops everything.
## PARAMS="Name=Value ..." overrides template parameters (the others keep their defaults).
PARAMS ?=
stack: emulator-tools stack-build
	$(EMULATORS)/with-emulators.sh $(call program,blog-stack,blog-stack) serve \
		$(foreach p,$(PARAMS),--parameter '$(p)')

## localstack: the same stack on LocalStack's runtime without Docker (installed by
## localstack-tools): LocalStack's S3, SQS and Secrets Manager with the resources its ready hook
## creates (infra/localstack/ready.d and resources/, the files the compose file mounts), the
## table on DynamoDB Local beside it (LocalStack's DynamoDB downloads its engine on first use);
## the local embedder, as infra/localstack/parameter-overrides.txt chooses (LocalStack has no
## Bedrock). The administrator's password and the actuator's token are BLOG_ADMIN_PASSWORD and
## BLOG_ACTUATOR_TOKEN (default local-actuator-token), stored by the hook. Ctrl-C stops
## everything. PARAMS as for `make stack`.
BLOG_ACTUATOR_TOKEN ?= local-actuator-token
.PHONY: localstack localstack-tools
localstack: localstack-tools stack-build
	BLOG_ACTUATOR_TOKEN='$(BLOG_ACTUATOR_TOKEN)' infra/localstack/with-localstack.sh \
		$(call program,blog-stack,blog-stack) serve --existing infra/localstack/resources \
		--parameter Embedder=local $(foreach p,$(PARAMS),--parameter '$(p)')

## localstack-tools: DynamoDB Local, cargo-lambda and LocalStack's runtime (Python 3.13)
localstack-tools:
	EMULATORS_SKIP_PYTHON=1 EMULATORS_SKIP_S3S=1 EMULATORS_WITH_LOCALSTACK=1 $(EMULATORS)/install.sh

## stack-build: every function of template.yaml built by one cargo invocation with the features
## of the functions together (debug), into target/stack/<function>/bootstrap; without `make
## test`'s clippy wrapper (its test build lints every feature at once). STACK_FEATURES=tests
## (what `make test` gives) builds them with the test build's features instead, under its
## wrapper: that build has compiled everything but the functions' `main`s (docs/testing.md).
STACK_FEATURES ?= functions
.PHONY: stack-build
stack-build:
	@[[ "$(STACK_FEATURES)" == functions || "$(STACK_FEATURES)" == tests ]] || \
		{ echo "STACK_FEATURES must be functions or tests" >&2; exit 2; }
ifeq ($(STACK_FEATURES),tests)
	$(call program,blog-stack,blog-stack) build --test-features
else
	env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS $(call program,blog-stack,blog-stack) build
endif

## smoke: post-deploy smoke test of the API at URL (a deployed stack's ApiUrl, or a local
## http://127.0.0.1:<port>): health, logins, an article through the worker, a file round trip,
## metrics; one line per check, non-zero exit at the first failure; removes what it created.
## Administrator from BLOG_ADMIN_USERNAME/BLOG_ADMIN_PASSWORD, actuator token from
## BLOG_ACTUATOR_TOKEN (when the stack has one). Without URL, the stack of CONFIG_ENV (default
## `default`; or STACK_NAME, REGION): its ApiUrl output, its AdminUsername, and the secrets of
## its AdminPasswordSecretArn and ActuatorTokenSecretArn outputs (infra/deploy/deploy.sh smoke).
.PHONY: smoke
smoke: $(if $(URL),,deploy-tools)
ifneq ($(URL),)
	$(call program,blog-smoke,blog-smoke) --url "$(URL)"
else
	infra/deploy/deploy.sh smoke $(call program,blog-smoke,blog-smoke)
endif

## smoke-local: `make smoke` against the local gateway, the stack on the emulators and the stack
## on LocalStack (`make localstack`), each started on a free port and stopped by
## infra/smoke/local.sh
.PHONY: smoke-local
smoke-local: emulator-tools localstack-tools stack-build
	CARGO="$(CARGO)" infra/smoke/local.sh

## invoke: a sample event sent to a function of a running `make stack` (another shell) with
## cargo-lambda through the stack's Lambda Invoke API; the function's answer printed. Its
## placeholders are rendered first: tokens by logins through the API (the administrator of
## BLOG_ADMIN_*, event_user), the actuator's from the stack, ids from the variables of their
## names (ARTICLE_ID=..., events/README.md); exit status 2, nothing invoked, when one has no
## value. FUNCTION is a binary or a logical id; URL= and INVOKE_PORT= name another stack.
##   make invoke FUNCTION=users EVENT=events/users/get-me.json
.PHONY: invoke
INVOKE_STACK = $(if $(URL), --url '$(URL)')$(if $(INVOKE_PORT), --invoke-port '$(INVOKE_PORT)')
invoke:
	@[[ -n "$(FUNCTION)" && -n "$(EVENT)" ]] || { echo "usage: make invoke FUNCTION=<binary or" \
		"logical id> EVENT=<file> [ARTICLE_ID=...] [URL=...] [INVOKE_PORT=...]" >&2; exit 2; }
	$(call program,blog-stack,blog-stack) invoke '$(FUNCTION)' '$(EVENT)'$(INVOKE_STACK)

## iam-report: docs/iam.md from the AWS actions the last stack tests recorded
.PHONY: iam-report
iam-report:
	$(call program,blog-stack,blog-stack) iam-report

## openapi: regenerate docs/openapi.json from the code (a test fails while the two differ)
.PHONY: openapi
openapi:
	BLOG_WRITE_OPENAPI=1 $(CARGO) test -p blog-api --all-features --test integration -- \
		openapi::the_committed_description

## routes: regenerate template.yaml's HttpApi route events from the areas each function serves
.PHONY: routes
routes:
	BLOG_WRITE_TEMPLATE=1 $(CARGO) test -p blog-api --all-features --test integration -- \
		template::each_function_is_routed

## modules: regenerate the list of the library crates' module paths (the loggers the actuator
## may set; a test fails while it differs from the files)
.PHONY: modules
modules:
	BLOG_WRITE_MODULES=1 $(CARGO) test -p blog-core --all-features --lib -- \
		telemetry::targets::tests::the_committed_module_list

## generate: regenerate all three, after adding or changing an endpoint or a module
.PHONY: generate
generate: routes openapi modules

## create-admin: create the administrator from BLOG_ADMIN_* without serving
create-admin:
	$(CARGO) run -p local-gateway --bin blog-gateway -- create-admin

## reindex: rebuild the search index from the table (the configuration's: BLOG_STORE and
## BLOG_DATA_DIR for `make dev`'s, or BLOG_STORE=dynamodb, BLOG_TABLE_NAME and BLOG_BUCKET_NAME
## for a deployed stack's) and delete the search-token items of earlier versions
.PHONY: reindex
reindex:
	$(CARGO) run -p local-gateway --bin blog-gateway -- reindex-search

## test: formatting, lints, unit and API tests on every target (in-process, the gateway on the
## emulators, the stack), API fuzzing, the smoke test on the gateway and the stack, template
## lint, the IAM report; each step's time is printed (what CI spends where).
## - The tools install (downloads, mostly) beside fmt-check and test-build, which need none.
## - test-build is clippy and the test build in one compile: the workspace's crates are
##   compiled by clippy-driver, as `cargo clippy` checks them (the same lints, warnings denied),
##   while the dependencies are built once for both. Every later cargo call keeps that wrapper,
##   so none compiles the workspace again.
## - The steps after unit-tests run the programs of its build (BLOG_BINS).
TEST_STEPS_BESIDE_TOOLS := fmt-check test-build
TEST_STEPS := unit-tests fuzz-api emulator-tests smoke-local iam-report lint-template
CLIPPY_DRIVER = $(shell command -v clippy-driver)
LINTED_BUILD = RUSTC_WORKSPACE_WRAPPER=$(CLIPPY_DRIVER) \
	CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
test:
	@[[ -n "$(CLIPPY_DRIVER)" ]] || { echo "clippy-driver not found: rustup component add clippy" >&2; exit 1; }
	@step() { \
		local started=$$(date +%s); \
		env $$2 $(MAKE) --no-print-directory $$1 \
			BLOG_BINS="$(or $(BLOG_BINS),$(TARGET_DIR)/debug)" STACK_FEATURES=tests || return 1; \
		echo "[make test] $$1 took $$(( $$(date +%s) - started )) s"; \
	}; \
	tools_log=$$(mktemp); \
	step tools >"$$tools_log" 2>&1 & tools_pid=$$!; \
	for each in $(TEST_STEPS_BESIDE_TOOLS); do \
		step $$each '$(LINTED_BUILD)' || { wait $$tools_pid; cat "$$tools_log"; exit 1; }; \
	done; \
	tools_status=0; wait $$tools_pid || tools_status=$$?; \
	cat "$$tools_log"; rm -f "$$tools_log"; \
	[[ $$tools_status == 0 ]] || exit 1; \
	for each in $(TEST_STEPS); do step $$each '$(LINTED_BUILD)' || exit 1; done

## tools: install the pinned emulators, LocalStack's runtime and the linters into .tools/
tools:
	EMULATORS_WITH_LOCALSTACK=1 $(EMULATORS)/install.sh

## emulator-tools: the tools but the AWS SAM CLI, which only the template's lint and the deploy
## run (`make stack`, `make smoke-local` and the benches need the emulators alone)
.PHONY: emulator-tools
emulator-tools:
	EMULATORS_WITHOUT_SAM=1 $(EMULATORS)/install.sh

build:
	$(CARGO) build --workspace --all-targets --all-features

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --all-features -- -D warnings

## check-areas: each function's crate checked alone, as `make package` builds it (its own
## area and adapter features of blog-api), and hello-dynamodb (blog-api without an area),
## warnings denied (target/areas; several minutes the first time)
.PHONY: check-areas
check-areas:
	@for crate in $(notdir $(wildcard functions/*)) hello-dynamodb; do \
		echo "checking $$crate alone"; \
		CARGO_TARGET_DIR=$(TARGET_DIR)/areas RUSTFLAGS="-D warnings" $(CARGO) check -q -p $$crate || exit 1; \
	done

## test-build: every test target built (`make test` builds it linted: see test)
.PHONY: test-build
test-build:
	$(CARGO) test --workspace --tests --benches --all-features --no-run

## unit-tests: everything that needs no emulator (embedded adapters, in-process), the benches
## run once each as tests, and the documentation's examples; four tests at a time, as the
## in-process API cases wait on their clients and servers as much as on the cores
unit-tests:
	RUST_TEST_THREADS=4 $(CARGO) test --workspace --tests --benches --all-features
	$(CARGO) test --workspace --all-features --doc

## fuzz-api: schemathesis against docs/openapi.json on the local gateway; fails on any 5xx
.PHONY: fuzz-api
fuzz-api:
	infra/fuzz/schemathesis.sh

## emulator-tests: the tests marked as needing emulators (no documentation example is): the
## gateway on DynamoDB Local, moto and s3s-fs, and the stack (its functions built first); each
## stack test fails when a function made an AWS call template.yaml does not grant it. Four cases
## at a time: they wait on the emulators and the stack's processes more than on the cores.
emulator-tests: stack-build
	rm -rf target/stack/iam target/stack/run
	$(EMULATORS)/with-emulators.sh $(CARGO) test --workspace --all-features --tests -- --ignored \
		--test-threads=4

## lint-template: cfn-lint and `sam validate --lint` on the SAM template (offline), and no
## physical name two stacks of it would share
lint-template:
	.tools/venv/bin/cfn-lint template.yaml
	SAM_CLI_TELEMETRY=0 AWS_REGION=us-east-1 .tools/sam/bin/sam validate --lint --template template.yaml
	SAM_CLI_TELEMETRY=0 .tools/sam/bin/python infra/checks/two_stacks.py

# Lambda packages: release builds with cargo-lambda (zig links; no Docker) into
# target/lambda/<arch>/<function>/bootstrap, Cargo's output in PACKAGE_TARGET_DIR (apart from the
# tests' debug builds): what `make package-check` and the cold-start bench run. Deployments build
# with `sam build` (`make deploy`), the same cargo-lambda builds.
PACKAGE_TARGET_DIR ?= $(CURDIR)/target/package
ARCH ?= arm64
export PACKAGE_TARGET_DIR
.PHONY: package package-all package-x86_64 package-arm64 package-check package-tools \
	deploy destroy deploy-tools

## package: every function in release for ARCH (arm64, the template's default; or x86_64)
package: package-tools
	@[[ "$(ARCH)" == x86_64 || "$(ARCH)" == arm64 ]] || { echo "ARCH must be x86_64 or arm64" >&2; exit 2; }
	infra/package/build.sh $(ARCH)

## package-all: every function for both architectures
package-all: package-x86_64 package-arm64

package-x86_64: package-tools
	infra/package/build.sh x86_64

package-arm64: package-tools
	infra/package/build.sh arm64

## package-tools: cargo-lambda and zig (PyPI, pinned) only, for machines that just package
package-tools:
	EMULATORS_ONLY_PACKAGING=1 $(EMULATORS)/install.sh

## deploy: `sam build` (cargo-lambda, no Docker) and `sam deploy`, no --guided, of the stack of
## CONFIG_ENV (default `default`: its section of samconfig.toml). The first time it asks for
## what has no default (ADMIN_EMAIL, SITE_URL; STACK_NAME, REGION, ADMIN_USERNAME show theirs),
## each answered by its variable when given (no terminal: a missing one stops it, exit 2), and
## saves the answers; later the saved ones. ARCH when given, else the saved one, else arm64.
## PARAMS="Name=Value ..." sets other template parameters (saved too).
deploy: deploy-tools
	ARCH=$(if $(filter file,$(origin ARCH)),,$(ARCH)) infra/deploy/deploy.sh

## destroy: delete the stack of CONFIG_ENV (or STACK_NAME, REGION): it names the stack and its
## region, sam delete asks first; then it prints the retained resources (the table, the bucket,
## the administrator's password secret) and the commands that delete them
destroy: deploy-tools
	infra/deploy/deploy.sh destroy

## deploy-tools: cargo-lambda, zig and the SAM CLI (pinned; its Python, with boto3, runs
## infra/deploy/deploy.py) only
deploy-tools:
	EMULATORS_ONLY_PACKAGING=1 EMULATORS_WITH_SAM=1 $(EMULATORS)/install.sh

## package-check: start each x86_64 package against the Lambda Runtime API emulator and invoke it
package-check: emulator-tools
	$(EMULATORS)/with-emulators.sh .tools/venv/bin/python infra/package/check.py

## bench: every benchmark, each writing its section of docs/performance.md (takes a while;
## not part of `make test`). The parts run alone too: bench-capacity, bench-coldstart,
## bench-load, bench-handlers, bench-search, bench-images.
# The benches get their own emulator state dir, so a concurrent `make test` neither reuses nor
# stops the emulators during the long runs. Release builds go to PACKAGE_TARGET_DIR under nice;
# the measurements themselves run at normal priority.
BENCH_OUT := $(CURDIR)/docs/performance.md
BENCH_EMULATORS := EMULATORS_STATE_DIR=$(CURDIR)/.emulators/bench $(EMULATORS)/with-emulators.sh
BENCH_BIN := $(PACKAGE_TARGET_DIR)/release
.PHONY: bench bench-tools bench-capacity bench-coldstart bench-load bench-handlers bench-build \
	bench-build-gateway
bench: bench-capacity bench-coldstart bench-load bench-handlers bench-search bench-images

## bench-tools: the emulators plus the pinned load generator oha
bench-tools:
	EMULATORS_WITH_BENCH=1 EMULATORS_WITHOUT_SAM=1 $(EMULATORS)/install.sh

# The bench programs and the cold-start baseline (release profile, like the functions).
bench-build:
	CARGO_TARGET_DIR=$(PACKAGE_TARGET_DIR) nice -n 10 $(CARGO) build --release --bins \
		-p bench -p hello-lambda

# The gateway and its hello-world ceiling (`gateway` profile: built for speed, not size).
bench-build-gateway:
	CARGO_TARGET_DIR=$(PACKAGE_TARGET_DIR) nice -n 10 $(CARGO) build --profile gateway \
		-p local-gateway --bin blog-gateway -p hello-lambda --bin hello-axum

## bench-capacity: DynamoDB calls and capacity, SQS sends and embeddings per endpoint, 1,000 and
## 10,000 articles. Dev profile on purpose: DynamoDB Local, not this process, bounds the seeding.
bench-capacity: bench-tools
	$(BENCH_EMULATORS) $(CARGO) run -p bench --bin capacity -- --articles 1000,10000 \
		--out $(BENCH_OUT)

## bench-search: the search engine at 1,000 and 10,000 articles of Chinese and English text with
## their vectors (release build, in-process): bundle size, load in a fresh process, warm search
## latencies, an article's update; docs/performance.md "Search" has the figures
.PHONY: bench-search
bench-search:
	for n in 1000 10000; do BLOG_SEARCH_MEASURE_ARTICLES=$$n $(CARGO) test -p blog-search \
		--release --test engine -- --ignored --nocapture measure_ten_thousand_articles; done

## bench-images: the worker's time and peak memory per image (`blog_files::images::variants`
## on a real photograph, on 12- and 40-megapixel JPEGs upscaled from it and on a transparent
## PNG of it; release build, each image in a fresh process): docs/performance.md "Images"
.PHONY: bench-images
bench-images:
	$(CARGO) test -p blog-files --release --test images -- --ignored --nocapture \
		measure_the_variants_of_photographs

## bench-coldstart: cold start, peak RSS and size of the x86_64 packages vs a hello world
bench-coldstart: bench-tools package-x86_64 bench-build
	FUNCTIONS="hello-lambda hello-dynamodb" infra/package/build.sh x86_64
	$(BENCH_EMULATORS) $(BENCH_BIN)/coldstart --lambda-dir target/lambda/x86_64 --out $(BENCH_OUT)

## bench-load: throughput and latency of the gateway under oha vs a hello-world axum
bench-load: bench-tools bench-build bench-build-gateway
	$(BENCH_BIN)/loadtest --gateway $(PACKAGE_TARGET_DIR)/gateway/blog-gateway \
		--hello $(PACKAGE_TARGET_DIR)/gateway/hello-axum \
		--oha .tools/cargo/bin/oha --out $(BENCH_OUT)

## bench-handlers: in-process latency per endpoint (criterion, SQLite in memory)
bench-handlers:
	CARGO_TARGET_DIR=$(PACKAGE_TARGET_DIR) nice -n 10 $(CARGO) bench -p bench --bench handlers --no-run
	BLOG_BENCH_OUT=$(BENCH_OUT) CARGO_TARGET_DIR=$(PACKAGE_TARGET_DIR) \
		$(CARGO) bench -p bench --bench handlers

clean:
	$(CARGO) clean
	rm -rf .emulators
