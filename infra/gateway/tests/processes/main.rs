//! The `blog-gateway` binary as a process: killed with SIGKILL in the middle of a stream of
//! writes and restarted (`crash`), and restarted as `make dev` runs it (`restart`). Apart from
//! the API suites (`tests/api`) because they time their children's starts and kills: here they
//! run with each other only, as they did alone, not beside a hundred in-process API tests.

mod crash;
mod restart;

/// A free port no listener bound to port 0 (another test's) can be given before the gateway
/// binds it: the stack's choice for its emulator.
fn free_port() -> u16 {
    blog_stack::runtime_api::free_port().unwrap()
}
