//! A function told to keep its data in an embedded table stops during initialisation, before it
//! asks the Runtime API for an invocation, with one line naming the variable and the fix.

use std::{
    io::Read,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

#[test]
#[ignore = "needs make stack-build; make test runs it"]
fn a_function_told_to_use_the_embedded_table_stops_at_initialisation_with_one_line() {
    let bootstrap = blog_stack::testing::workspace().join("target/stack/articles/bootstrap");
    assert!(bootstrap.exists(), "run make stack-build");
    // Nothing listens on port 9: a function that got past its initialisation would fail
    // differently (it could not poll the Runtime API).
    let mut child = Command::new(&bootstrap)
        .env_clear()
        .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9")
        .env("AWS_LAMBDA_FUNCTION_NAME", "articles")
        .env("AWS_REGION", "us-east-1")
        .env("BLOG_STORE", "embedded")
        .env("BLOG_TABLE_NAME", "blog")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the function did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(!status.success());
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    let line = lines[0];
    assert!(line.contains("articles cannot start"), "{line}");
    assert!(line.contains("BLOG_STORE=embedded"), "{line}");
    assert!(line.contains("set it to dynamodb"), "{line}");
}

#[test]
#[ignore = "needs make stack-build; make test runs it"]
fn inside_lambda_a_function_without_blog_store_uses_dynamodb() {
    let bootstrap = blog_stack::testing::workspace().join("target/stack/articles/bootstrap");
    // No table endpoint answers here either, but the initialisation passes: the function goes
    // on to poll the Runtime API, which is not there, and says so.
    let output = Command::new(&bootstrap)
        .env_clear()
        .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9")
        .env("AWS_LAMBDA_FUNCTION_NAME", "articles")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("BLOG_TABLE_NAME", "blog")
        // The search index's bucket, as the template sets it.
        .env("BLOG_BUCKET_NAME", "uploads")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("cannot start"), "{stderr}");
}
