//! The `blog-smoke` binary's answers when it cannot test anything: a clear line and a
//! non-zero exit, never a panic. (`make test` runs it green against `make dev` and `make stack`
//! through infra/smoke/local.sh.)

use std::process::{Command, Output};

fn smoke(args: &[&str], admin_password: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blog-smoke"));
    command
        .args(args)
        .env_remove("URL")
        .env_remove("BLOG_ACTUATOR_TOKEN")
        .env("BLOG_ADMIN_USERNAME", "admin")
        .env_remove("BLOG_ADMIN_PASSWORD");
    if let Some(password) = admin_password {
        command.env("BLOG_ADMIN_PASSWORD", password);
    }
    command.output().expect("running blog-smoke")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn an_api_that_does_not_answer_fails_the_first_check_and_nothing_is_cleaned() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let output = smoke(&["--url", &url, "--timeout", "5"], Some("Admin12345"));
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], format!("[smoke] {url}"));
    assert!(lines[1].starts_with("FAIL health: GET /actuator/health"), "{text}");
    assert!(lines[2].starts_with("[smoke] FAILED after "), "{text}");
}

#[test]
fn a_url_that_is_no_http_base_url_is_refused_with_the_reason() {
    let output = smoke(&["--url", "localhost:3000"], Some("Admin12345"));
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL configuration: `localhost:3000` is not an http(s) URL with a host"),
        "{text}"
    );
}

#[test]
fn a_missing_administrator_password_is_an_argument_error() {
    let output = smoke(&["--url", "http://127.0.0.1:9"], None);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{errors}");
    assert!(errors.contains("--admin-password"), "{errors}");
    assert!(stdout(&output).is_empty());
}
