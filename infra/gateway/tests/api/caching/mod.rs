//! API tests of the HTTP caching of the public reads (entity tags, conditional requests,
//! freshness headers) and of the answers no cache keeps, on every target.

mod cases;

on_every_target!(
    cases::every_public_read_answers_a_stable_strong_tag_and_public_freshness,
    cases::a_matching_if_none_match_answers_304_without_a_body,
    cases::the_detail_is_revalidated_and_carries_its_update_time,
    cases::writes_change_the_tags_of_what_they_change,
    cases::a_request_with_a_token_is_answered_for_its_own_cache_only,
    cases::head_answers_the_headers_of_get_where_the_api_routes_it,
    cases::errors_and_other_routes_carry_no_caching_headers,
    cases::the_max_age_follows_the_template_parameter,
    cases::browsers_may_send_if_none_match_and_read_the_tag,
    cases::every_answer_to_a_token_and_every_auth_answer_says_no_store,
);
