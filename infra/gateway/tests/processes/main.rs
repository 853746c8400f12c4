//! The `blog-gateway` binary as a process: killed with SIGKILL in the middle of a stream of
//! writes and restarted (`crash`), restarted as `make dev` runs it (`restart`), and its search
//! index kept by its own worker and rebuilt by `reindex-search` (`search`). Apart from
//! the API suites (`tests/api`) because they time their children's starts and kills: here they
//! run with each other only, as they did alone, not beside a hundred in-process API tests.

mod crash;
mod restart;
mod search;

/// A free port no listener bound to port 0 (another test's) can be given before the gateway
/// binds it: the stack's choice for its emulator.
fn free_port() -> u16 {
    blog_stack::runtime_api::free_port().unwrap()
}
