//! What the smoke test creates: names unique to the run, two articles on one topic, a file.

use std::{
    hash::BuildHasher,
    time::{SystemTime, UNIX_EPOCH},
};

use md5::{Digest, Md5};

/// MIME type of the uploaded file (its name ends in `.png`).
pub const FILE_TYPE: &str = "image/png";
/// Side in pixels of the uploaded image (about 3 KB of pixels that do not compress).
pub const FILE_SIDE: u32 = 32;

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

/// The bytes the run uploads: a PNG image of [`FILE_SIDE`]² pseudo-random pixels derived from
/// `suffix` (confirm reads an image's type and size from its bytes).
pub fn file_bytes(suffix: &str) -> Vec<u8> {
    let mut state = u64::from_str_radix(&suffix[..16.min(suffix.len())], 16).unwrap_or(0) | 1;
    let image = image::RgbImage::from_fn(FILE_SIDE, FILE_SIDE, |_, _| {
        // xorshift64: cheap pixels that differ from run to run.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let [r, g, b, ..] = state.to_le_bytes();
        image::Rgb([r, g, b])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).expect("encoding a PNG in memory");
    bytes.into_inner()
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
    fn the_file_is_a_png_image_that_differs_per_run() {
        let bytes = file_bytes("0123456789abcdef");
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png);
        assert_eq!(decoded.map(|image| (image.width(), image.height())).ok(), Some((32, 32)));
        assert_ne!(bytes, file_bytes("fedcba9876543210"));
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
    }
}
