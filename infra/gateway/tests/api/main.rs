//! The API test suites in one binary (one link of the AWS SDK instead of one per suite): each
//! area on every target (in-process, the gateway on the emulators, the stack; see `support`),
//! the property tests of request parsing, the API description, the Grafana dashboard, and the
//! log redaction of the `blog-gateway` binary and the stack's functions (a child process of its
//! own with its own environment: nothing here sets this process's environment or installs a
//! global subscriber), and kept-alive connections over real TCP. The suites that kill and
//! restart the gateway are in `tests/processes`.

#[macro_use]
mod support;

mod accounts;
mod articles;
mod caching;
mod comments;
mod connections;
mod feeds;
mod files;
mod grafana;
mod log_redaction;
mod migration;
mod openapi;
mod ops;
mod request_props;
mod taxonomy;
mod worker;
