//! What the smoke test creates: names unique to the run, two articles on one topic, a file.

use std::{
    hash::BuildHasher,
    time::{SystemTime, UNIX_EPOCH},
};

use md5::{Digest, Md5};

/// MIME type of the uploaded file (its name ends in `.png`).
pub const FILE_TYPE: &str = "image/png";
const FILE_SIZE: usize = 4096;
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// 16 hexadecimal digits unique to this run (the clock and the process id, hashed with the
/// standard library's randomly keyed hasher).
pub fn unique_suffix() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let hash = std::collections::hash_map::RandomState::new().hash_one((nanos, std::process::id()));
    format!("{hash:016x}")
}

/// The account the run registers.
#[derive(Clone, Debug)]
pub struct User {
    /// Its id, once registered (empty before).
    pub id: String,
    /// `smoke_` and 12 hexadecimal digits (the API allows 3-20 of `[A-Za-z0-9_]`).
    pub username: String,
    /// 15 characters with upper case, lower case and digits.
    pub password: String,
}

impl User {
    /// The account of the run with `suffix` (at least 12 characters).
    pub fn for_run(suffix: &str) -> User {
        User {
            id: String::new(),
            username: format!("smoke_{}", &suffix[..12]),
            password: format!("Sm0ke{}", &suffix[..10]),
        }
    }

    /// Its e-mail address.
    pub fn email(&self) -> String {
        format!("{}@example.com", self.username)
    }
}

/// Title and Markdown of the run's article `n`: every one on the same topic, each naming the
/// run's suffix, so that their embeddings are nearest to each other.
pub fn article(suffix: &str, n: usize) -> (String, String) {
    let title = format!("Smoke test {suffix}: sourdough notes {}", n + 1);
    let angle = match n {
        0 => "feeding the starter with rye flour and water until it doubles",
        _ => "baking the loaf once the starter has doubled and the dough has proofed",
    };
    let content = format!(
        "# Sourdough, part {part}\n\n\
         Written by the post-deploy smoke test `{suffix}` and deleted by it.\n\n\
         Sourdough bread rises with a starter of flour and water: wild yeast and lactic bacteria. \
         These notes are about {angle}. A sourdough starter wants flour, water, warmth and time; \
         the sourdough loaf wants a hot oven, steam and patience.\n\n\
         - sourdough starter: flour, water, yeast\n\
         - sourdough bread: dough, proofing, baking\n",
        part = n + 1,
    );
    (title, content)
}

/// The bytes the run uploads: a PNG signature and a pseudo-random body derived from `suffix`.
pub fn file_bytes(suffix: &str) -> Vec<u8> {
    let mut state = u64::from_str_radix(&suffix[..16.min(suffix.len())], 16).unwrap_or(0) | 1;
    let mut bytes = PNG_SIGNATURE.to_vec();
    while bytes.len() < FILE_SIZE {
        // xorshift64: cheap bytes that differ from run to run.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(FILE_SIZE);
    bytes
}

/// MD5 of `bytes` as 32 lower-case hexadecimal digits (the presign's `md5`).
pub fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_credentials_follow_the_apis_rules() {
        let suffix = unique_suffix();
        assert_eq!(suffix.len(), 16);
        let user = User::for_run(&suffix);
        assert!((3..=20).contains(&user.username.len()));
        assert!(user.username.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        assert!((8..=20).contains(&user.password.len()));
        for class in [char::is_ascii_uppercase, char::is_ascii_lowercase, char::is_ascii_digit] {
            assert!(user.password.chars().any(|c| class(&c)), "{}", user.password);
        }
        assert_ne!(unique_suffix(), suffix);
    }

    #[test]
    fn the_articles_share_the_topic_and_name_the_run() {
        let (first_title, first) = article("0123456789abcdef", 0);
        let (second_title, second) = article("0123456789abcdef", 1);
        assert_ne!(first_title, second_title);
        assert_ne!(first, second);
        for text in [&first, &second] {
            assert!(text.contains("0123456789abcdef") && text.matches("sourdough").count() >= 4);
        }
    }

    #[test]
    fn the_file_is_a_png_of_fixed_size_that_differs_per_run() {
        let bytes = file_bytes("0123456789abcdef");
        assert_eq!(bytes.len(), FILE_SIZE);
        assert!(bytes.starts_with(&PNG_SIGNATURE));
        assert_ne!(bytes, file_bytes("fedcba9876543210"));
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
    }
}
