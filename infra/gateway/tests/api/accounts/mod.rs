//! API tests of the auth and users areas, on both adapter sets.

mod cases;
mod login;
mod signups;

on_every_target!(
    cases::registration_returns_the_new_account_with_role_user,
    cases::registration_names_the_field_that_breaks_a_rule,
    cases::user_names_and_emails_are_unique_case_insensitively,
    signups::registrations_from_one_address_stop_at_the_limit_and_another_address_registers,
    signups::simultaneous_registrations_from_one_address_create_at_most_the_limit,
    signups::nicknames_lose_control_and_bidi_characters_and_an_invisible_one_is_refused,
    login::login_accepts_the_user_name_or_the_email,
    login::a_wrong_password_and_an_unknown_user_get_the_same_401,
    login::five_failed_logins_lock_the_account_for_the_window,
    login::forty_simultaneous_wrong_passwords_check_five_and_refuse_the_rest,
    login::the_right_password_in_a_burst_of_wrong_ones_is_checked_only_within_the_limit,
    login::failures_from_one_address_do_not_lock_out_another,
    login::failures_from_many_addresses_reach_the_ceiling_of_the_name,
    login::a_disabled_account_with_its_password_answers_as_a_wrong_password,
    login::logout_needs_a_token_and_answers_null,
    cases::me_shows_the_profile_without_the_password,
    cases::a_user_edits_their_profile_but_not_their_name_or_status,
    cases::an_email_change_keeps_uniqueness,
    cases::only_administrators_manage_other_accounts,
    cases::a_disabled_account_is_refused_and_can_be_re_enabled,
    cases::a_deleted_account_frees_its_name_and_email,
    cases::an_administrator_cannot_disable_or_delete_themselves,
    cases::bad_tokens_get_401_in_the_account_envelope,
    cases::path_ids_that_are_not_positive_integers_are_parameter_errors,
    cases::twenty_simultaneous_registrations_of_one_user_name_give_one_account,
    cases::twenty_simultaneous_registrations_of_one_email_give_one_account,
    cases::preflight_requests_answer_204_for_any_origin,
    cases::unknown_paths_answer_404_in_json,
    ;
    counting_calls:
    login::a_successful_login_resets_the_failure_count,
    login::an_over_long_login_is_refused_without_touching_the_store,
    cases::the_profile_costs_one_read_whether_the_token_check_read_the_account_or_not,
);
