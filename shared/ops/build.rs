//! Embeds the git commit, branch and commit time and the build time, for `/actuator/info`.
//! `BLOG_GIT_COMMIT` / `BLOG_GIT_BRANCH` override git (builds from a source archive);
//! `SOURCE_DATE_EPOCH` fixes the build time (reproducible builds).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (output.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    for variable in ["BLOG_GIT_COMMIT", "BLOG_GIT_BRANCH", "SOURCE_DATE_EPOCH"] {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let reference = git(&["symbolic-ref", "-q", "HEAD"]);
        // Only files that exist: Cargo reruns the script at every build for a missing one (a
        // repository whose refs were never packed has no packed-refs), and every function
        // would then recompile and relink.
        let watched = ["HEAD".to_string(), "packed-refs".into()].into_iter().chain(reference);
        for file in watched.map(|name| format!("{git_dir}/{name}")) {
            if std::path::Path::new(&file).exists() {
                println!("cargo:rerun-if-changed={file}");
            }
        }
    }
    let commit = std::env::var("BLOG_GIT_COMMIT")
        .ok()
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    let branch = std::env::var("BLOG_GIT_BRANCH")
        .ok()
        .or_else(|| git(&["rev-parse", "--abbrev-ref", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    let commit_time = git(&["show", "-s", "--format=%ct", "HEAD"]).unwrap_or_default();
    let build_time = std::env::var("SOURCE_DATE_EPOCH").ok().unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map(|elapsed| elapsed.as_secs().to_string()).unwrap_or_default()
    });
    println!("cargo:rustc-env=BLOG_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=BLOG_GIT_BRANCH={branch}");
    println!("cargo:rustc-env=BLOG_GIT_COMMIT_EPOCH={commit_time}");
    println!("cargo:rustc-env=BLOG_BUILD_EPOCH={build_time}");
}
