//! API tests of the comments (comments-and-stats.md), on every target.

pub(crate) mod cases;
mod frontend;
mod likes;
mod matrix;
mod moderation;
mod paging;
mod races;
mod renames;
mod rules;
mod safety;
mod xss;

on_every_target!(
    frontend::an_article_page_loads_the_article_its_related_list_and_its_comment_tree_together,
    cases::the_tree_of_an_article_without_comments_is_empty_and_other_targets_are_refused,
    cases::comments_and_replies_form_the_tree_with_every_field_of_the_object,
    cases::bodies_are_checked_field_by_field,
    cases::who_may_read_edit_and_delete,
    matrix::the_authorisation_matrix_holds_for_every_endpoint,
    cases::a_deleted_comment_with_replies_stays_as_a_placeholder,
    rules::replies_nest_at_most_five_levels,
    rules::comments_on_a_disabled_article_are_refused_and_stay_readable,
    rules::the_sixth_comment_of_a_minute_is_too_many,
    races::parallel_comments_keep_comment_count_exact,
    races::parallel_replies_keep_reply_count_exact,
    races::parallel_moderation_and_deletes_move_the_counts_once,
    xss::no_script_survives_in_a_comment,
    likes::liking_a_comment_is_idempotent_and_exact_under_concurrency,
    likes::liking_an_article_is_idempotent_and_exact_under_concurrency,
    moderation::administrators_list_approve_reject_and_delete_with_a_reason,
    moderation::reports_are_one_open_per_user_and_upheld_or_dismissed_once,
    rules::with_moderation_comments_wait_for_approval_except_an_administrators,
    moderation::with_moderation_an_approved_comment_shows_and_counts,
    renames::a_renamed_author_shows_on_their_comments_and_the_replies_to_them,
    renames::an_older_rename_delivered_late_changes_no_comment,
    paging::the_tree_is_paged_by_roots_with_its_total_and_a_link_to_the_next,
    paging::a_client_that_sends_no_page_gets_the_first_fifty_threads,
    paging::a_page_of_a_flooded_article_stays_small,
    safety::edits_and_reports_are_limited_like_posting,
    safety::with_moderation_an_edit_sends_an_approved_comment_back_to_pending,
    safety::replies_under_a_comment_that_is_not_approved_are_refused,
    safety::nothing_under_a_rejected_comment_is_shown_counted_or_readable_by_others,
    safety::comments_of_a_deleted_article_can_no_longer_be_changed,
    ;
    counting_calls:
    races::the_first_page_of_the_tree_is_one_round_trip_and_a_comment_three,
    paging::a_page_reads_at_most_a_thousand_comments_however_long_its_threads,
);
