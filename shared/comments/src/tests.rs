//! The tree as each reader sees it.

use super::{
    model::{CommentStatus, StoredComment},
    public::forest,
};

fn comment(id: u64, parent: Option<u64>, user: u64, status: CommentStatus) -> StoredComment {
    StoredComment {
        root_id: parent.map_or(id, |_| 1),
        user_id: user,
        user_name: format!("u{user}"),
        reply_to_user_id: None,
        reply_to_user_name: None,
        content: format!("c{id}"),
        content_html: format!("<p>c{id}</p>"),
        status,
        ..super::relayout::flood_comment(1, id, parent)
    }
}

fn shape(nodes: &[super::model::CommentNode]) -> String {
    let parts: Vec<String> = nodes
        .iter()
        .map(|n| match n.children.is_empty() {
            true => n.comment.id.clone(),
            false => format!("{}({})", n.comment.id, shape(&n.children)),
        })
        .collect();
    parts.join(" ")
}

#[test]
fn each_reader_sees_their_own_tree() {
    use CommentStatus::*;
    let comments = vec![
        comment(1, None, 10, Approved),
        comment(2, Some(1), 11, Pending),
        comment(3, Some(2), 10, Approved),
        comment(4, None, 11, Deleted),
        comment(5, Some(4), 10, Approved),
        comment(6, None, 10, Deleted),
        comment(7, None, 12, Rejected),
        comment(8, Some(1), 12, Approved),
    ];
    assert_eq!(shape(&forest(comments.clone(), None)), "1(8) 4(5)");
    assert_eq!(shape(&forest(comments.clone(), Some((11, false)))), "1(2(3) 8) 4(5)");
    assert_eq!(shape(&forest(comments.clone(), Some((12, false)))), "1(8) 4(5) 7");
    assert_eq!(shape(&forest(comments.clone(), Some((99, true)))), "1(2(3) 8) 4(5) 7");
    let placeholder = &forest(comments, None)[1].comment;
    assert_eq!((placeholder.content.as_str(), placeholder.user_id.as_ref()), ("", None));
}

#[test]
fn a_page_keeps_ordinary_threads_whole_and_cuts_a_flooded_one_to_its_share() {
    use super::pages::{TreePage, REPLY_BUDGET};
    use CommentStatus::*;
    let long = "x".repeat(2000);
    let mut comments = vec![comment(1, None, 10, Approved), comment(2, Some(1), 11, Approved)];
    comments.push(comment(3, None, 12, Approved));
    for id in 4..1004 {
        let mut reply = comment(id, Some(3), 12, Approved);
        reply.root_id = 3;
        reply.content = long.clone();
        comments.push(reply);
    }
    let page = TreePage::parse(None, None).unwrap();
    let all = forest(comments, None);
    let (headers, roots) = page.answer(all.len() as u64, all[page.range(all.len())].to_vec(), 1);
    assert_eq!(headers["x-total-count"], "2");
    assert!(!headers.contains_key("link"));
    assert_eq!(shape(&roots[..1]), "1(2)");
    let kept = roots[1].children.len();
    assert!((100..1000).contains(&kept), "{kept}");
    assert_eq!(roots[1].children[0].comment.id, "4", "the oldest replies are kept");
    let bytes = serde_json::to_vec(&roots).unwrap().len();
    assert!(bytes <= REPLY_BUDGET + 10_000, "{bytes}");
}

#[test]
fn page_and_size_are_checked_and_the_next_page_is_linked() {
    use super::pages::TreePage;
    for (page, size) in
        [(Some("0"), None), (None, Some("0")), (None, Some("101")), (Some("x"), None)]
    {
        assert!(TreePage::parse(page, size).is_err(), "{page:?} {size:?}");
    }
    let roots = (1..=5).map(|id| comment(id, None, 10, CommentStatus::Approved)).collect();
    let all = forest(roots, None);
    let second = TreePage::parse(Some("2"), Some("2")).unwrap();
    assert_eq!(second.range(5), 2..4);
    assert_eq!(TreePage::parse(Some("9"), Some("2")).unwrap().range(5), 5..5);
    let (headers, page) = second.answer(5, all[second.range(5)].to_vec(), 7);
    assert_eq!(shape(&page), "3 4");
    assert_eq!(
        headers["link"],
        "</api/v1/comments/tree?targetType=ARTICLE&targetId=7&page=3&size=2>; rel=\"next\""
    );
}
