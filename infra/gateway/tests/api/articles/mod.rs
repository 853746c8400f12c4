//! API tests of the public and admin article areas, on both adapter sets.

// The worker suite builds its articles with these steps too.
mod by_slug;
pub(crate) mod cases;
mod categories_and_tags;
mod preview;
mod races;
mod reads;
mod revisions;
mod schedule;
mod search;
mod stats;
mod views;
mod writes;

on_every_target!(
    cases::an_administrator_creates_a_draft_with_rendered_content,
    cases::create_and_update_name_the_field_that_breaks_a_rule,
    cases::the_status_transitions_follow_the_spec_table,
    cases::publish_sets_the_publish_time_and_emits_the_event,
    cases::updates_raise_the_version_and_stale_versions_conflict,
    cases::of_concurrent_updates_of_one_version_exactly_one_wins,
    cases::deleted_and_unknown_articles_are_not_found,
    cases::only_administrators_manage_articles,
    categories_and_tags::counters_stay_exact_through_the_lifecycle,
    categories_and_tags::concurrent_publish_and_archive_keep_the_counters_exact,
    races::concurrent_status_changes_of_one_article_keep_the_counters_exact,
    categories_and_tags::deleting_a_tag_detaches_it_from_its_articles,
    categories_and_tags::renaming_a_category_or_tag_shows_in_the_articles,
    reads::the_public_list_orders_pinned_then_newest_with_exact_pages,
    reads::the_public_list_filters_by_category_tag_and_keyword,
    reads::list_parameters_are_validated,
    search::a_keyword_matches_every_word_of_title_and_summary_however_late_in_any_script,
    search::a_search_ranks_title_matches_first_and_marks_where_its_words_matched,
    search::a_change_is_searched_after_every_step_of_an_articles_life,
    search::semantic_and_hybrid_search_rank_by_meaning_within_a_budget_per_client,
    search::a_query_with_nothing_to_embed_finds_nothing_by_meaning_and_its_words_in_hybrid,
    search::search_parameters_are_checked_in_the_articles_envelope,
    search::a_renamed_category_or_tag_is_searched_under_its_new_name,
    by_slug::a_tags_articles_are_the_list_filtered_by_its_id,
    by_slug::a_categorys_articles_are_the_list_filtered_by_its_id,
    by_slug::an_unknown_or_malformed_slug_is_not_found_in_the_articles_envelope,
    reads::the_public_detail_shows_published_and_archived_only,
    reads::every_field_has_its_spec_type,
    reads::the_admin_list_shows_every_state_with_a_status_filter,
    writes::an_update_answers_its_first_failed_check,
    stats::articles_carry_their_authors_name_and_counters,
    stats::an_author_without_a_nickname_shows_by_user_name,
    stats::a_counter_added_between_an_administration_read_and_its_write_survives,
    views::a_reader_counts_one_view_however_often_they_read_and_revalidate,
    views::readers_count_apart_and_a_signed_in_reader_counts_once_from_anywhere,
    views::simultaneous_reads_count_one_view_per_reader_and_lose_none,
    stats::a_renamed_author_shows_on_every_article_of_theirs,
    stats::an_older_rename_delivered_late_changes_nothing,
    schedule::a_scheduled_draft_is_published_at_its_time_once_with_its_event,
    schedule::a_schedule_needs_a_future_time_and_a_draft,
    schedule::a_cancelled_moved_or_overtaken_schedule_does_not_fire,
    revisions::revisions_answer_errors_in_the_articles_envelope,
    revisions::at_most_fifty_revisions_are_kept_the_oldest_going_first,
    preview::a_preview_link_reads_the_draft_until_it_is_revoked,
    preview::a_new_link_replaces_the_one_before_and_works_the_hours_asked,
    preview::an_expired_link_answers_as_an_unknown_or_malformed_one,
    preview::publishing_keeps_a_link_working_and_deleting_the_article_ends_it,
    preview::preview_requests_are_checked_in_the_articles_envelope,
    preview::a_preview_counts_no_view_and_no_cache_keeps_it,
    ;
    counting_calls:
    reads::a_public_page_deeper_than_1000_articles_is_refused_without_reading,
    by_slug::the_pages_by_slug_take_the_lists_parameters_and_refuse_the_paths_filter,
    by_slug::a_page_by_slug_reads_the_slugs_marker_then_what_the_list_reads,
    reads::reads_cost_what_the_data_model_says,
    reads::a_full_page_of_a_category_or_tag_is_still_two_calls,
    reads::the_admin_list_reads_every_state_and_the_total_in_one_round_trip,
    reads::a_repeated_public_read_is_kept_until_the_next_write,
    writes::create_and_update_read_the_category_and_tags_in_one_round_trip,
    writes::content_too_large_for_one_item_is_a_parameter_error_naming_it,
    views::a_read_that_is_not_found_counts_nothing_and_writes_nothing,
    views::a_revalidated_read_counts_nothing_and_a_changed_article_counts_its_reader,
    revisions::every_update_keeps_the_version_it_replaces_and_a_restore_is_a_new_version,
    preview::preview_links_cost_what_the_data_model_says,
);
