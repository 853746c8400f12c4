//! Embeds the git commit, branch and commit time and the build time, for `/actuator/info`.
//! `BLOG_GIT_COMMIT` / `BLOG_GIT_BRANCH` override git (builds from a source archive);
//! `SOURCE_DATE_EPOCH` fixes the build time (reproducible builds). Also lists the crate's
//! module paths (`$OUT_DIR/modules.rs`): the loggers the actuator may set.

use std::{path::Path, process::Command};

/// The module paths under `dir` (the module `prefix`), sorted.
fn modules(dir: &Path, prefix: &str, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let module = format!("{prefix}::{name}");
            modules(&path, &module, found);
            found.push(module);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if !["mod", "lib", "main", "tests"].contains(&stem) {
                found.push(format!("{prefix}::{stem}"));
            }
        }
    }
}

fn write_modules() {
    println!("cargo:rerun-if-changed=src");
    let mut found = vec!["blog_shared".to_string()];
    modules(Path::new("src"), "blog_shared", &mut found);
    found.sort();
    found.dedup();
    let list: Vec<String> = found.iter().map(|module| format!("    {module:?},")).collect();
    let code = format!(
        "/// Module paths of this crate.\npub const MODULES: &[&str] = &[\n{}\n];\n",
        list.join("\n")
    );
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(Path::new(&out).join("modules.rs"), code).expect("writing modules.rs");
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (output.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    write_modules();
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
