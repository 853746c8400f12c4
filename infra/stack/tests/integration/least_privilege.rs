//! What template.yaml lets each function do to the table, read from the template itself:
//! every item action on the table is narrowed to the partitions the function uses
//! (`dynamodb:LeadingKeys`), and accounts (`USER#<id>`, password hashes included) are read only
//! by the functions that check tokens and written only by those that manage accounts.

use blog_stack::{
    actions::Action, iam::Decision, report::symbolic_policies, template::Template,
    testing::workspace,
};

fn template() -> Template {
    Template::load(&workspace().join("template.yaml")).expect("template.yaml")
}

fn on_accounts(action: &str) -> Action {
    Action::new(&format!("dynamodb:{action}"), "BlogTable").keys(&["USER#7"])
}

#[test]
fn accounts_are_read_only_where_tokens_are_checked_and_written_only_where_accounts_are_managed() {
    let policies = symbolic_policies(&template()).unwrap();
    let readers = ["AuthFunction", "UsersFunction", "CategoriesFunction", "TagsFunction"];
    let others =
        ["AdminArticlesFunction", "CommentsFunction", "AdminCommentsFunction", "FilesFunction"];
    let readers = [readers.as_slice(), &others].concat();
    let writers = ["AuthFunction", "UsersFunction"];
    for (function, (_, policy)) in &policies {
        let reads = matches!(policy.decide(&on_accounts("GetItem")), Decision::Allowed(_));
        assert_eq!(reads, readers.contains(&function.as_str()), "{function} reads USER#");
        for write in ["PutItem", "UpdateItem", "DeleteItem"] {
            let writes = matches!(policy.decide(&on_accounts(write)), Decision::Allowed(_));
            assert_eq!(writes, writers.contains(&function.as_str()), "{function} {write} USER#");
        }
    }
    assert_eq!(policies.len(), 12, "every function");
}

#[test]
fn every_item_action_on_the_table_is_narrowed_to_the_functions_partitions() {
    let policies = symbolic_policies(&template()).unwrap();
    for (function, (_, policy)) in &policies {
        for statement in &policy.statements {
            let on_table = statement.resources().iter().any(|r| r == "BlogTable");
            let item_actions = statement
                .actions()
                .iter()
                .any(|a| a.starts_with("dynamodb:") && a != "dynamodb:DescribeTable");
            if on_table && item_actions {
                assert!(
                    !statement.leading_keys().is_empty(),
                    "{function} {}: table items without dynamodb:LeadingKeys",
                    statement.sid
                );
            }
        }
    }
}
