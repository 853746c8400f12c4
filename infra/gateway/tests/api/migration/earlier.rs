//! The earlier index layout, as the versions before gsi3 wrote it, made of items of the present
//! one: what a table deployed before gsi3 holds.

use blog_api::ports::table::{s, AttributeValue, Item, Key, Table};

fn text(item: &Item, attribute: &str) -> Option<String> {
    match item.get(attribute) {
        Some(AttributeValue::S(value)) => Some(value.clone()),
        _ => None,
    }
}

/// Moves the item's gsi3 keys to index `to` (`gsi1`, `gsi2`).
fn move_keys(item: &mut Item, to: &str) {
    let (Some(pk), Some(sk)) = (item.remove("gsi3pk"), item.remove("gsi3sk")) else { return };
    item.insert(format!("{to}pk"), pk);
    item.insert(format!("{to}sk"), sk);
}

/// Rewrites `items` (the table's items of the kinds the migration moves, present layout) as
/// the earlier versions stored them: heads by status and users' comments in gsi2; schedules
/// (on the head), comments and reports by status, file records and accounts in gsi1; no
/// schedule items and no locators in an author's partition.
pub async fn rewrite(table: &dyn Table, items: &[Item]) {
    let find = |pk: &str, sk: &str| {
        items.iter().find(|item| Key::of(item) == Some(Key::new(pk, sk))).cloned()
    };
    for stored in items {
        let key = Key::of(stored).expect("key");
        let mut item = stored.clone();
        let kind = key.pk.split('#').next().unwrap_or_default().to_string();
        match (kind.as_str(), key.sk.as_str()) {
            ("ARTICLE", "A#HEAD") => {
                move_keys(&mut item, "gsi2");
                if let Some(schedule) = find(&key.pk, "A#SCHEDULE") {
                    item.insert("gsi1pk".into(), s("SCHEDULED"));
                    item.insert("gsi1sk".into(), s(text(&schedule, "gsi3sk").expect("sk")));
                    table.delete(&Key::of(&schedule).unwrap(), None).await.unwrap();
                }
            }
            ("ARTICLE", _) => continue,
            ("COMMENTS", sort) if sort.starts_with("C#") => {
                move_keys(&mut item, "gsi1");
                let own = sort.rsplit('#').next().unwrap_or_default();
                let id = own.trim_start_matches('0').to_string();
                let locator = find(&format!("COMMENT#{id}"), "COMMENT").expect("locator");
                item.insert("gsi2pk".into(), s(text(&locator, "gsi3pk").expect("author")));
                item.insert("gsi2sk".into(), s(text(&locator, "gsi3sk").expect("order")));
            }
            ("COMMENT", _) => {
                for attribute in ["gsi3pk", "gsi3sk", "commentId"] {
                    item.remove(attribute);
                }
            }
            ("REPORT" | "FILE", _) => move_keys(&mut item, "gsi1"),
            ("USER", _) => {
                let id: u64 = key.pk.trim_start_matches("USER#").parse().expect("user id");
                item.insert("gsi1pk".into(), s("USERS"));
                item.insert("gsi1sk".into(), s(format!("USER#{id:016}")));
            }
            _ => continue,
        }
        table.put(item, None).await.unwrap();
    }
}
