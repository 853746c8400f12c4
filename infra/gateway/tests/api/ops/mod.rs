//! API tests of the operations area (`/actuator`), on both adapter sets.

mod cases;
mod instances;

on_every_target!(
    cases::health_reports_the_table_storage_queue_and_disk_up,
    cases::health_is_down_with_503_when_the_table_is_unreachable,
    cases::one_health_component_answers_alone_and_an_unknown_one_is_404,
    cases::info_names_the_build_and_its_commit,
    cases::requests_are_measured_per_route_template_status_and_outcome,
    cases::every_metric_name_of_the_spec_answers_and_others_are_404,
    cases::prometheus_text_carries_the_request_series_and_the_process_gauges,
    cases::a_logger_level_set_through_the_actuator_is_stored_and_effective,
    cases::bad_logger_names_and_levels_are_400,
    cases::at_most_32_loggers_have_levels_at_once,
    instances::a_logger_level_reaches_another_running_instance_within_its_refresh_interval,
    instances::the_actuator_token_guards_everything_but_the_probes,
    instances::functions_add_their_figures_to_the_table_and_the_ops_function_reads_the_totals,
);
