"""The reliability probe's scenarios: what a user does to a verb, what must happen, and the test that holds it.

The next probe round starts from this table: each row is a scenario a round tried, with the test (``file::name``
under tests/reliability unless the path says otherwise) that keeps it held. ``test_scenarios.py`` checks that every
named test exists, so a renamed or dropped test cannot leave a scenario unguarded.
"""

from __future__ import annotations

from typing import NamedTuple


class Scenario(NamedTuple):
    area: str
    scenario: str
    expected: str
    test: str


SCENARIOS: tuple[Scenario, ...] = (
    # --- kills and signals: data is never lost, nothing is left behind
    Scenario("kills", "SIGTERM / SIGKILL while index builds", "no Java child, no staging folder left",
             "test_kill.py::test_killed_index_leaves_no_java_child_and_no_staging"),
    Scenario("kills", "kill while search writes its run", "no temporary run left",
             "test_kill.py::test_killed_search_leaves_no_temporary_run"),
    Scenario("kills", "kill while sweep runs", "no staging, no child", "test_kill.py::test_killed_sweep_leaves_no_staging_and_no_child"),
    Scenario("kills", "signal between the two renames of an --overwrite publish", "the old output or the new one",
             "test_outputs.py::test_a_signal_while_publishing_leaves_the_old_or_the_new_output"),
    Scenario("kills", "kill -9 between the two renames of a publish", "the next run puts the old output back",
             "test_outputs.py::test_a_killed_publish_has_its_old_output_put_back_not_deleted"),
    Scenario("kills", "a killed JVM (indexer or embedded)", "no /tmp/.java_pid<pid> left",
             "test_kill.py::test_a_killed_indexer_jvm_leaves_no_attach_socket"),
    Scenario("kills", "a killed embedded JVM", "no /tmp/.java_pid<pid> left",
             "test_kill.py::test_a_killed_embedded_jvm_leaves_no_attach_socket"),
    Scenario("kills", "kill corpus --workers / fetch", "workers die with the verb", "test_workers.py::test_corpus_workers_die_with_a_killed_verb"),
    Scenario("kills", "kill during a download", "the next run removes the temporary",
             "test_workers.py::test_a_killed_downloads_temporary_is_removed_by_the_next_run"),
    Scenario("kills", "kill eval", "no trec_eval binary left in java.io.tmpdir",
             "test_encodings.py::test_a_killed_eval_leaves_no_trec_eval_binary_in_the_java_temp_folder"),
    # --- outputs: --overwrite replaces only what the tool wrote
    Scenario("outputs", "index --overwrite while another IndexWriter holds write.lock", "refused, the writer lives",
             "test_kill.py::test_index_overwrite_refuses_a_folder_whose_write_lock_another_writer_holds"),
    Scenario("outputs", "an output that is an input (path, hard link, symlink)", "refused in one line",
             "test_ownership.py::test_an_output_that_is_an_input_is_refused"),
    Scenario("outputs", "--overwrite on a folder holding a foreign file", "refused, naming it",
             "test_ownership.py::test_overwrite_refuses_a_folder_holding_one_foreign_file"),
    Scenario("outputs", "--overwrite on ., .. or a parent", "refused", "test_outputs.py::test_index_overwrite_refuses_current_folder_and_parents"),
    Scenario("outputs", "index into a mount point", "refused before building", "test_ownership.py::test_index_refuses_a_mount_point_before_building"),
    # --- full disks
    Scenario("disk full", "every verb on a 1 MB tmpfs", "one error line, nothing left", "test_fuzz.py::test_a_disk_that_fills_up_is_one_error_line_and_leaves_nothing"),
    Scenario("disk full", "the output path on a full disk", "one line naming the path", "test_ownership.py::test_a_full_disk_is_one_error_line_naming_the_path"),
    # --- pipes and the command line
    Scenario("pipes", "topics from -, /dev/stdin, <(cat topics.tsv), 1 or 50 topics", "the same run as from the file",
             "test_pipes.py::test_search_reads_piped_topics_once"),
    Scenario("pipes", "rewrite with piped topics", "the same run as from the file", "test_pipes.py::test_rewrite_reads_piped_topics_once"),
    Scenario("pipes", "sweep with piped topics", "the same sweep as from the file", "test_pipes.py::test_sweep_reads_piped_topics_once"),
    Scenario("pipes", "a verb's output into a closed pipe (| head)", "quiet end, no traceback", "test_api_and_flags.py::test_a_closed_pipe_is_not_a_traceback"),
    Scenario("pipes", "python -m qlog_pyserini --help | head -1", "quiet end, no traceback",
             "../cli/test_cli_dispatch.py::test_a_closed_pipe_ends_the_dispatcher_quietly"),
    # --- evaluation inputs
    Scenario("evaluation", "eval --metrics recip_rank,success.1,success.5,success.10", "every measure printed, trec_eval's values",
             "test_eval_inputs.py::test_eval_prints_every_measure_of_a_family"),
    Scenario("evaluation", "run scores 1e39 and 5e38 (infinite as 32-bit floats)", "refused with file and line",
             "test_eval_inputs.py::test_a_score_beyond_a_32_bit_float_is_refused_with_file_and_line"),
    Scenario("evaluation", "a run that answers no judged query", "one error, same from eval, compare and evaluate()",
             "test_eval_inputs.py::test_a_run_that_answers_no_judged_query_is_one_error_everywhere"),
    Scenario("evaluation", "a NaN or text score", "refused with file and line", "test_inputs.py::test_eval_and_compare_refuse_a_nan_score_with_file_and_line"),
    Scenario("evaluation", "a byte-order mark on a run or qrels", "no metric changes", "test_encodings.py::test_a_byte_order_mark_changes_no_metric"),
    Scenario("evaluation", "sweep topics a subset of the judged queries", "measured on the searched judged queries, both counts said",
             "test_pipes.py::test_sweep_measures_only_the_searched_judged_queries"),
    Scenario("evaluation", "a judged query the topics lack", "not searched, no KeyError",
             "test_pipes.py::test_a_judged_query_the_topics_lack_is_not_searched_and_not_an_error"),
    # --- odd indexes
    Scenario("odd indexes", "an index with 0 documents", "refused by every verb in one message",
             "test_search_contracts.py::test_an_index_without_documents_is_refused_by_every_verb_in_the_same_words"),
    Scenario("odd indexes", "a corrupt index", "one error line", "test_search_contracts.py::test_corrupt_index_is_one_error_line"),
    Scenario("odd indexes", "a BEIR folder as a corpus", "its corpus.jsonl only", "test_encodings.py::test_a_beir_folder_contributes_its_corpus_only"),
    Scenario("odd indexes", "an index built with another analyzer (-stemmer none, -pretokenized)",
             "the analyzer is known (flags or the index) and a mismatch refused",
             "test_analyzer_mismatch.py::test_an_index_built_without_stemming_is_refused_under_porter"),
    # --- adversarial queries
    Scenario("queries", "a query of more than 1024 distinct terms", "answered", "test_search_contracts.py::test_a_query_with_more_than_1024_distinct_terms_is_answered"),
    Scenario("queries", "stopword-only queries", "counted, no run lines", "test_search_contracts.py::test_stopword_only_queries_are_counted"),
    Scenario("queries", "a lone surrogate in a query", "one error naming the line", "test_encodings.py::test_a_lone_surrogate_in_a_query_is_one_error_naming_the_line"),
    Scenario("queries", "malformed topics, runs, qrels, corpora (seeded fuzz)", "one error line, nothing left",
             "test_fuzz.py::test_malformed_input_is_one_error_line_and_leaves_nothing"),
    # --- threads
    Scenario("threads", "a batch while another thread installs a model", "the batch keeps its model",
             "test_search_contracts.py::test_a_batch_runs_under_the_similarity_installed_when_it_started"),
    Scenario("threads", "short-lived threads calling the searcher", "no Java thread left", "test_search_contracts.py::test_short_lived_threads_leave_no_java_thread"),
    # --- PyTerrier frames
    Scenario("pyterrier", "a frame whose query is NaN, None or pd.NA", "refused naming the qid",
             "test_api_and_flags.py::test_a_missing_query_in_a_frame_is_refused_naming_its_qid"),
    Scenario("pyterrier", "QLogRetriever(k1=-1), b = 2, threads = 0, mu = -5", "refused at construction",
             "test_api_and_flags.py::test_a_bad_retriever_parameter_fails_at_construction"),
    Scenario("pyterrier", "r.k1 = -1 after construction", "refused when assigned, the old value kept",
             "test_api_and_flags.py::test_a_bad_retriever_attribute_fails_when_assigned_and_keeps_the_old_value"),
    # --- parameter edges
    Scenario("parameters", "set_similarity('qld', muu=500), ('bm25', bb=0.3)", "refused, naming the keyword",
             "test_api_and_flags.py::test_a_keyword_the_model_does_not_take_is_refused"),
    Scenario("parameters", "sweep --q-grid '' or '0.5,,0.7'", "refused naming the empty item", "test_inputs.py::test_sweep_refuses_an_empty_grid_item_before_any_work"),
    Scenario("parameters", "sweep --q-grid -1,3", "read as the grid", "test_inputs.py::test_sweep_reads_a_negative_grid_as_its_value"),
    Scenario("parameters", "q outside [-1, 3]", "refused", "test_inputs.py::test_q_outside_the_meaningful_range_is_refused"),
    Scenario("parameters", "gamma or mu a Java float cannot hold", "refused before Java", "test_inputs.py::test_parameters_a_java_float_cannot_hold_are_refused_before_java"),
    Scenario("parameters", "junk $QLOG_JAVA_OPTS", "one error line quoting the JVM", "test_jvm_failures.py::test_junk_jvm_options_are_one_error_line_for_search"),
    Scenario("parameters", "a heap too small for the indexer", "said, no crash file", "test_jvm_failures.py::test_an_indexer_out_of_heap_says_so_and_leaves_no_crash_file"),
)
