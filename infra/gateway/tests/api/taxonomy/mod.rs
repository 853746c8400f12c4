//! API tests of the categories and tags areas, on both adapter sets.

mod categories;
mod steps;
mod tags;
mod together;

on_every_target!(
    categories::the_category_tree_nests_children_sorted_at_every_level,
    categories::the_flat_category_list_is_ordered_by_sort_order_without_children,
    categories::a_category_slug_lookup_finds_it_and_a_miss_answers_string_404,
    categories::category_rules_are_checked,
    categories::a_category_cannot_move_under_itself_or_a_descendant,
    categories::a_category_with_children_or_articles_cannot_be_deleted,
    together::only_administrators_manage_categories_and_tags,
    tags::tags_are_created_updated_and_deleted,
    tags::tag_lists_follow_the_requested_order_and_limit,
    tags::bad_tag_list_parameters_are_string_400s,
    tags::hot_tags_are_the_most_used_ten_by_default,
    together::article_counts_move_only_for_existing_categories_and_tags,
    categories::concurrent_creations_of_one_slug_give_one_category,
    ;
    counting_calls:
    together::reads_of_the_tree_and_the_tag_lists_cost_one_query,
);
