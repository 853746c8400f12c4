//! The import scanner of the dependency test: the paths a source file names out of its
//! top-level module, read with comments and strings left out.

/// The source text with comments, strings and character literals blanked out (line breaks
/// kept, so positions keep their line).
pub(super) fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        let start = i;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 1;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && (!ident(i.checked_sub(1).and_then(|p| chars.get(p))) || chars[i - 1] == 'b')
            && chars[i + 1..].iter().find(|c| **c != '#') == Some(&'"')
        {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            out.push('r');
            i += 2 + hashes;
            let close: Vec<char> =
                std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while i < chars.len() && !chars[i..].starts_with(&close) {
                i += 1;
            }
            i = (i + close.len()).min(chars.len());
            chars[start + 1..i].iter().for_each(|c| blank(&mut out, *c));
            continue;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            i += if next == Some('\\') { 3 } else { 2 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
            continue;
        }
        chars[start..i.min(chars.len())].iter().for_each(|c| blank(&mut out, *c));
    }
    out
}

fn skip_space(code: &[char], mut at: usize) -> usize {
    while code.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

fn ident_end(code: &[char], mut at: usize) -> usize {
    while code.get(at).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
        at += 1;
    }
    at
}

/// Reads the path or use tree at `at` under `prefix`, recording each path it names with its
/// position; returns where the tree ends.
fn use_tree(
    code: &[char],
    at: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let mut at = skip_space(code, at);
    if code.get(at) == Some(&'{') {
        at += 1;
        loop {
            at = skip_space(code, at);
            match code.get(at) {
                None => return at,
                Some('}') => return at + 1,
                Some(',') => at += 1,
                Some(_) => {
                    let next = use_tree(code, at, prefix, out);
                    at = if next == at { at + 1 } else { next };
                }
            }
        }
    }
    if code.get(at) == Some(&'*') {
        out.push((prefix.to_vec(), at));
        return at + 1;
    }
    let end = ident_end(code, at);
    if end == at {
        return at;
    }
    let ident: String = code[at..end].iter().collect();
    let mut path = prefix.to_vec();
    if ident != "self" {
        path.push(ident);
    }
    let after = skip_space(code, end);
    if code[after..].starts_with(&[':', ':']) {
        return use_tree(code, after + 2, &path, out);
    }
    out.push((path, at));
    let renamed = code[after..].starts_with(&['a', 's']) && ident_end(code, after) == after + 2;
    if renamed {
        ident_end(code, skip_space(code, after + 2))
    } else {
        end
    }
}

/// The paths out of its top-level module that `source` (a file of module depth `depth`) names,
/// each cut to two segments (module, then what it reaches into), with its line: `crate::`
/// paths, `super::` paths that climb to the crate root (inline `mod x {` blocks count as a
/// level), and paths that start with one of `bare` (the features, named after an import).
pub(super) fn paths_out(source: &str, depth: usize, bare: &[&str]) -> Vec<(Vec<String>, usize)> {
    let code: Vec<char> = code_only(source).chars().collect();
    let line_of = |at: usize| 1 + code[..at].iter().filter(|c| **c == '\n').count();
    let (mut found, mut braces, mut inline) = (Vec::new(), 0usize, Vec::new());
    let word = |at: usize, w: &str| {
        let before = at.checked_sub(1).and_then(|p| code.get(p));
        !before.is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            && code[at..].starts_with(&w.chars().collect::<Vec<_>>())
    };
    let mut i = 0;
    while i < code.len() {
        match code[i] {
            '{' => braces += 1,
            '}' => {
                braces = braces.saturating_sub(1);
                if inline.last() == Some(&braces) {
                    inline.pop();
                }
            }
            _ => {}
        }
        if word(i, "mod ") {
            let name_end = ident_end(&code, skip_space(&code, i + 4));
            if code.get(skip_space(&code, name_end)) == Some(&'{') {
                inline.push(braces);
            }
        } else if word(i, "crate::") {
            i = use_tree(&code, i + 7, &[], &mut found);
            continue;
        } else if word(i, "super::") {
            let mut at = i;
            let mut climbs = 0;
            while code[at..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                climbs += 1;
                at += 7;
            }
            if climbs >= depth + inline.len() {
                at = use_tree(&code, at, &[], &mut found);
            }
            i = at;
            continue;
        } else if let Some(name) = bare.iter().find(|name| word(i, &format!("{name}::"))) {
            i = use_tree(&code, i, &[], &mut found);
            debug_assert!(found.last().is_some_and(|(path, _)| path[0] == *name));
            continue;
        }
        i += 1;
    }
    let cut = |path: Vec<String>| path.into_iter().take(2).collect::<Vec<_>>();
    found.into_iter().filter(|(p, _)| !p.is_empty()).map(|(p, at)| (cut(p), line_of(at))).collect()
}

#[test]
fn the_scan_reads_paths_and_groups_and_skips_comments_and_strings() {
    let source = "use crate::{\n    http::{a, b},\n    ports::table,\n};\n\
        // crate::articles in a comment\n/* crate::auth */ let s = \"crate::files\";\n\
        let r = r#\"crate::ops\"#; let c = '\"'; let q = '\\''; fn f<'a>() { crate::time::now() }\n\
        mod tests { use super::super::setup; use super::ids; }\n\
        let x = taxonomy::tags::repo::find(); use crate::{taxonomy::{self as t, TagLabel}};\n";
    let found = paths_out(source, 1, &["taxonomy"]);
    let paths: Vec<(String, usize)> = found.iter().map(|(p, l)| (p.join("::"), *l)).collect();
    let expected = [
        ("http::a", 2),
        ("http::b", 2),
        ("ports::table", 3),
        ("time::now", 7),
        ("setup", 8),
        ("taxonomy::tags", 9),
        ("taxonomy", 9),
        ("taxonomy::TagLabel", 9),
    ];
    assert_eq!(paths, expected.map(|(p, l)| (p.to_string(), l)));
}
