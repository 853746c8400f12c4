//! API tests of the categories and tags areas, on both adapter sets.

mod cases;

on_every_target!(
    cases::the_category_tree_nests_children_sorted_at_every_level,
    cases::the_flat_category_list_is_ordered_by_sort_order_without_children,
    cases::a_category_slug_lookup_finds_it_and_a_miss_answers_string_404,
    cases::category_rules_are_checked,
    cases::a_category_cannot_move_under_itself_or_a_descendant,
    cases::a_category_with_children_or_articles_cannot_be_deleted,
    cases::only_administrators_manage_categories_and_tags,
    cases::tags_are_created_updated_and_deleted,
    cases::tag_lists_follow_the_requested_order_and_limit,
    cases::bad_tag_list_parameters_are_string_400s,
    cases::hot_tags_are_the_most_used_ten_by_default,
    cases::article_counts_move_only_for_existing_categories_and_tags,
    cases::reads_of_the_tree_and_the_tag_lists_cost_one_query,
    cases::concurrent_creations_of_one_slug_give_one_category,
);
