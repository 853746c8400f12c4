//! Writes of articles. Every change of an article is one transaction computed from the article
//! before and after it: the head (guarded by its version, status and deletion flag), the body
//! when it changed, the listing and link items derived from the head (put when new or
//! changed, deleted when gone), and the counters the change moves (category and tag
//! `articleCount`/`refCount`, per-status statistics). So counters are exact at every moment.

pub mod keys;
pub mod maintenance;
pub mod model;
pub mod published;
pub mod reactions;
pub mod read;

use std::collections::BTreeMap;

use blog_core::{
    codes::Coded,
    ports::table::{
        n, refused_by, s, AttributeValue, Condition, Item, Key, Table, TableError, Transaction,
        Update, Write, PK, SK,
    },
    records,
};
use blog_taxonomy::{category_count_write, category_name, tag_count_write, tag_labels};

use crate::model::{ArticleBody, ArticleHead, Status, COUNTERS};

/// Why an article transaction was refused.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The article changed since it was read (version, status or deletion).
    #[error("article changed concurrently")]
    Stale,
    /// The category does not exist (any more).
    #[error("categoryId: category {0} does not exist")]
    MissingCategory(u64),
    /// A tag does not exist (any more).
    #[error("tagIds: tag {0} does not exist")]
    MissingTag(u64),
    /// The table failed.
    #[error(transparent)]
    Table(#[from] TableError),
}

fn gsi(item: &mut Item, index: u8, partition: String, sort: String) {
    item.insert(format!("gsi{index}pk"), s(partition));
    item.insert(format!("gsi{index}sk"), s(sort));
}

fn link(head: &ArticleHead, sk: String) -> Item {
    let mut item = records::key_item(&Key::new(keys::partition(head.id), sk));
    item.insert("articleId".into(), n(head.id as i64));
    if let Some(category) = head.category_id {
        item.insert("categoryId".into(), n(category as i64));
    }
    let tags = head.tag_ids().into_iter().map(|t| n(t as i64)).collect();
    item.insert("tagIds".into(), AttributeValue::L(tags));
    item
}

/// The items an article's head stands for, by sort key: the head itself (in the
/// administration's gsi3 partition of its status while not deleted), its schedule while it is a
/// scheduled draft (gsi3 `SCHEDULED`), and while the article is not deleted its author, category
/// and tag links (in the gsi2 link partitions), and while it is listed its places in the public
/// listings (gsi1). So gsi1 holds only what anyone may read, gsi2 ids and
/// links, and gsi3 what only the administration reads.
fn derived_items(head: &ArticleHead) -> Result<BTreeMap<String, Item>, TableError> {
    let mut items = BTreeMap::new();
    let listed = head.is_listed();
    let order = head.listing_key();
    let mut head_item = records::to_item(head, &keys::head(head.id))?;
    if listed {
        gsi(&mut head_item, 1, keys::PUBLISHED.into(), order.clone());
    }
    if !head.is_deleted {
        gsi(&mut head_item, 3, keys::admin(head.status), format!("{:016}", head.id));
    }
    items.insert(keys::HEAD.to_string(), head_item);
    if let Some(at) = head.scheduled_at.as_ref().filter(|_| head.is_schedulable()) {
        let mut schedule = records::key_item(&Key::new(keys::partition(head.id), keys::SCHEDULE));
        schedule.insert("articleId".into(), n(head.id as i64));
        schedule.insert("scheduledAt".into(), s(at));
        gsi(&mut schedule, 3, keys::SCHEDULED.into(), format!("{at}#{:016}", head.id));
        items.insert(keys::SCHEDULE.to_string(), schedule);
    }
    if head.is_deleted {
        return Ok(items);
    }
    let mut author = link(head, keys::AUTHOR_LINK.into());
    gsi(&mut author, 2, keys::author_links(head.author_id), format!("{:016}", head.id));
    items.insert(keys::AUTHOR_LINK.to_string(), author);
    if let Some(category) = head.category_id {
        let mut item = link(head, keys::CATEGORY_LINK.into());
        gsi(&mut item, 2, keys::category_links(category), format!("{:016}", head.id));
        if listed {
            gsi(&mut item, 1, keys::published_in_category(category), order.clone());
        }
        items.insert(keys::CATEGORY_LINK.to_string(), item);
    }
    for tag in head.tag_ids() {
        let mut item = link(head, keys::tag_link(tag));
        gsi(&mut item, 2, keys::tag_links(tag), format!("{:016}", head.id));
        if listed {
            gsi(&mut item, 1, keys::published_with_tag(tag), order.clone());
        }
        items.insert(keys::tag_link(tag), item);
    }
    Ok(items)
}

/// A stored head's item and its schedule item (when it is a scheduled draft) as the present
/// layout writes them (for the index migration).
pub fn head_and_schedule(stored: Item) -> Result<(Item, Option<Item>), TableError> {
    let head: ArticleHead = records::from_item(stored)?;
    let mut items = derived_items(&head)?;
    let head_item = items.remove(keys::HEAD).unwrap_or_default();
    Ok((head_item, items.remove(keys::SCHEDULE)))
}

/// The head still is as read: its version, status, deletion and schedule (so a publication
/// the sweep decided on a schedule that was moved meanwhile does not happen).
fn unchanged(before: &ArticleHead) -> Condition {
    let schedule = match &before.scheduled_at {
        Some(at) => Condition::equals("scheduledAt", s(at)),
        None => Condition::LacksAttribute("scheduledAt".into()),
    };
    Condition::All(vec![
        Condition::equals("version", n(before.version)),
        Condition::equals("status", n(before.status.code())),
        Condition::equals("isDeleted", n(before.is_deleted.into())),
        schedule,
    ])
}

/// The administration's change of a stored head: SET of the attributes it owns that changed,
/// REMOVE of those it no longer carries (listing keys of an unlisted article, say). The counters
/// are never part of it (they are only ever ADDed), and neither is anything the administration
/// did not change (a rename the worker wrote meanwhile stays), so an UpdateItem guarded by the
/// version keeps whatever was ADDed between the read and this write.
fn head_update(old: &Item, new: &Item) -> Update {
    let owned = |attribute: &String| {
        attribute != PK && attribute != SK && !COUNTERS.contains(&attribute.as_str())
    };
    let mut update = Update::new();
    for (attribute, value) in new.iter().filter(|(a, _)| owned(a)) {
        if old.get(attribute) != Some(value) {
            update = update.set(attribute.clone(), value.clone());
        }
    }
    for attribute in old.keys().filter(|a| owned(a) && !new.contains_key(*a)) {
        update = update.remove(attribute.clone());
    }
    update
}

/// The names of the writes whose failure says why an article transaction was refused.
const ARTICLE: &str = "article";
const CATEGORY_COUNT: &str = "category count";
const TAG_COUNT: &str = "tag count";

fn counter_deltas(
    before: Option<&ArticleHead>,
    after: &ArticleHead,
    ids: impl Fn(&ArticleHead) -> Vec<u64>,
) -> BTreeMap<u64, (i64, i64)> {
    let mut deltas: BTreeMap<u64, (i64, i64)> = BTreeMap::new();
    let mut count = |head: &ArticleHead, sign: i64| {
        let listed = head.is_listed() as i64;
        let referenced = i64::from(!head.is_deleted);
        for id in ids(head) {
            let entry = deltas.entry(id).or_default();
            entry.0 += sign * listed;
            entry.1 += sign * referenced;
        }
    };
    if let Some(before) = before {
        count(before, -1);
    }
    count(after, 1);
    deltas.retain(|_, (published, referenced)| *published != 0 || *referenced != 0);
    deltas
}

fn stats_write(before: Option<&ArticleHead>, after: &ArticleHead) -> Option<Write> {
    let mut update = Update::new();
    let counted = |head: &ArticleHead, status: Status| !head.is_deleted && head.status == status;
    for status in Status::ALL {
        let delta = counted(after, status) as i64 - before.map_or(0, |b| counted(b, status) as i64);
        if delta != 0 {
            update = update.add(status.counter(), delta);
        }
    }
    (!update.add.is_empty()).then(|| Write::Update { key: keys::stats(), update, condition: None })
}

/// Commits the change of an article from `before` (None when new) to `after`, with its body
/// when that changed, and any `extra` writes that must land with it (an outbox event).
pub async fn save(
    table: &dyn Table,
    before: Option<&ArticleHead>,
    after: &ArticleHead,
    body: Option<&ArticleBody>,
    extra: Vec<Write>,
) -> Result<(), StoreError> {
    let old = before.map(derived_items).transpose()?.unwrap_or_default();
    let new = derived_items(after)?;
    let mut writes = Transaction::new();
    for (sk, item) in &new {
        if sk == keys::HEAD {
            writes.push(
                ARTICLE,
                match before {
                    None => {
                        Write::Put { item: item.clone(), condition: Some(Condition::NotExists) }
                    }
                    Some(before) => Write::Update {
                        key: keys::head(after.id),
                        update: head_update(&old[keys::HEAD], item),
                        condition: Some(unchanged(before)),
                    },
                },
            );
        } else if old.get(sk) != Some(item) {
            writes.push("derived item", Write::Put { item: item.clone(), condition: None });
        }
    }
    for sk in old.keys().filter(|sk| !new.contains_key(*sk)) {
        let key = Key::new(keys::partition(after.id), sk.clone());
        writes.push("derived item", Write::Delete { key, condition: None });
    }
    if let Some(body) = body {
        let item = records::to_item(body, &keys::body(after.id))?;
        writes.push("body", Write::Put { item, condition: None });
    }
    let categories = counter_deltas(before, after, |h| h.category_id.into_iter().collect());
    for (id, (published, referenced)) in &categories {
        writes.push(CATEGORY_COUNT, category_count_write(*id, *published, *referenced));
    }
    let tags = counter_deltas(before, after, ArticleHead::tag_ids);
    for (id, (published, referenced)) in &tags {
        writes.push(TAG_COUNT, tag_count_write(*id, *published, *referenced));
    }
    if let Some(stats) = stats_write(before, after) {
        writes.push("statistics", stats);
    }
    writes.extend("with the article", extra);
    match writes.commit(table).await {
        Ok(()) => Ok(()),
        Err(error) if refused_by(&error, ARTICLE) => Err(StoreError::Stale),
        // A count write is refused when its category or tag is gone: which one is read back,
        // on this race only.
        Err(error) if refused_by(&error, CATEGORY_COUNT) => {
            for id in categories.keys() {
                if category_name(table, *id).await?.is_none() {
                    return Err(StoreError::MissingCategory(*id));
                }
            }
            Err(StoreError::Stale)
        }
        Err(error) if refused_by(&error, TAG_COUNT) => {
            let ids: Vec<u64> = tags.keys().copied().collect();
            let existing: Vec<u64> = tag_labels(table, &ids).await?.iter().map(|t| t.id).collect();
            match ids.into_iter().find(|id| !existing.contains(id)) {
                Some(id) => Err(StoreError::MissingTag(id)),
                None => Err(StoreError::Stale),
            }
        }
        Err(TableError::Refused { .. }) => Err(StoreError::Stale),
        Err(other) => Err(other.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TagRef;

    fn head(status: Status, category: Option<u64>, tags: &[u64]) -> ArticleHead {
        let tags = tags.iter().map(|t| TagRef {
            id: t.to_string(),
            name: format!("t{t}"),
            slug: format!("t{t}"),
            color: "#000000".into(),
        });
        ArticleHead {
            summary: "Borrowing explained".into(),
            category_id: category,
            tags: tags.collect(),
            status,
            ..ArticleHead::published_for_tests(7, "Rust ownership")
        }
    }

    #[test]
    fn publishing_moves_published_counts_but_not_references() {
        let draft = head(Status::Draft, Some(3), &[4, 5]);
        let published = head(Status::Published, Some(3), &[4, 5]);
        let categories =
            counter_deltas(Some(&draft), &published, |h| h.category_id.into_iter().collect());
        assert_eq!(categories.into_iter().collect::<Vec<_>>(), [(3, (1, 0))]);
        let tags = counter_deltas(Some(&draft), &published, ArticleHead::tag_ids);
        assert_eq!(tags.into_iter().collect::<Vec<_>>(), [(4, (1, 0)), (5, (1, 0))]);
    }

    #[test]
    fn moving_a_published_article_moves_both_counts() {
        let before = head(Status::Published, Some(3), &[4]);
        let after = head(Status::Published, Some(8), &[9]);
        let categories =
            counter_deltas(Some(&before), &after, |h| h.category_id.into_iter().collect());
        assert_eq!(categories.into_iter().collect::<Vec<_>>(), [(3, (-1, -1)), (8, (1, 1))]);
    }

    #[test]
    fn only_listed_articles_have_listing_items_and_no_article_has_search_tokens() {
        let draft = derived_items(&head(Status::Draft, Some(3), &[4])).unwrap();
        assert_eq!(
            draft.keys().cloned().collect::<Vec<_>>(),
            ["A#AUTHOR", "A#CAT", "A#HEAD", "A#TAG#0000000000000004"]
        );
        assert!(!draft["A#HEAD"].contains_key("gsi1pk"));
        let published = derived_items(&head(Status::Published, Some(3), &[4])).unwrap();
        // The words are the search index's (crate::search), not items of the article's.
        assert_eq!(published.keys().collect::<Vec<_>>(), draft.keys().collect::<Vec<_>>());
        assert_eq!(published["A#HEAD"]["gsi1pk"], s("PUB"));
        assert_eq!(published["A#CAT"]["gsi1pk"], s("PUBCAT#3"));
        let mut deleted = head(Status::Published, Some(3), &[4]);
        deleted.is_deleted = true;
        assert_eq!(derived_items(&deleted).unwrap().len(), 1);
    }

    /// The partition of `index` an item is in, if any.
    fn in_index(item: &Item, index: u8) -> Option<String> {
        match (item.get(&format!("gsi{index}pk")), item.get(&format!("gsi{index}sk"))) {
            (Some(AttributeValue::S(pk)), Some(_)) => Some(pk.clone()),
            _ => None,
        }
    }

    #[test]
    fn a_draft_is_only_in_the_private_index_and_its_schedule_is_an_item_of_its_own() {
        let mut draft = head(Status::Draft, Some(3), &[4]);
        draft.scheduled_at = Some("2030-01-01T09:00:00".into());
        let items = derived_items(&draft).unwrap();
        assert_eq!(in_index(&items["A#HEAD"], 3).as_deref(), Some("ADMIN#0"));
        let schedule = &items[keys::SCHEDULE];
        assert_eq!(in_index(schedule, 3).as_deref(), Some("SCHEDULED"));
        assert_eq!(schedule["gsi3sk"], s("2030-01-01T09:00:00#0000000000000007"));
        assert_eq!(schedule["scheduledAt"], s("2030-01-01T09:00:00"));
        for (sk, item) in &items {
            assert_eq!(in_index(item, 1), None, "{sk}: a draft is in no public listing");
        }
        let gsi2: Vec<String> = items.values().filter_map(|i| in_index(i, 2)).collect();
        assert_eq!(gsi2, ["AUTHOR#1", "CATLINK#3", "TAGLINK#4"], "gsi2 holds links only");
        let published = derived_items(&head(Status::Published, Some(3), &[4])).unwrap();
        assert!(!published.contains_key(keys::SCHEDULE));
        assert_eq!(in_index(&published["A#HEAD"], 3).as_deref(), Some("ADMIN#1"));
    }

    #[test]
    fn an_administration_write_of_a_head_sets_what_changed_and_never_a_counter() {
        let before = head(Status::Published, Some(3), &[4]);
        let mut after = before.clone();
        after.status = Status::Archived;
        after.version = 2;
        after.view_count = 99;
        after.like_count = 5;
        let old = &derived_items(&before).unwrap()[keys::HEAD];
        let new = &derived_items(&after).unwrap()[keys::HEAD];
        let update = head_update(old, new);
        let mut set: Vec<&str> = update.set.iter().map(|(a, _)| a.as_str()).collect();
        set.sort();
        assert_eq!(set, ["gsi3pk", "status", "version"]);
        let mut removed = update.remove.clone();
        removed.sort();
        assert_eq!(removed, ["gsi1pk", "gsi1sk"]);
        assert!(update.add.is_empty());
    }
}
