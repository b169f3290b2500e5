"""OpenAI Evals data with its testing criteria, Inspect datasets and chat JSONL become suite rows; what cannot
be represented is refused or, when asked, dropped and listed; every row is one the suite reader accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.errors import ValidationError
from assay.services.suites.files import SuiteFormat, read_suite_file
from assay.services.suites.imports import ImportFormat, ImportReport, import_file, jsonl_rows
from assay.services.suites.imports.reading import MAX_FILE_BYTES, MAX_ROW_BYTES

DATA = Path(__file__).resolve().parents[2] / "data" / "imports"


def fixture(name: str, source_format: ImportFormat, **options: Any) -> ImportReport:
    path = DATA / name
    return import_file(path.read_bytes(), path.name, source_format, **options)


def openai(
    data: str, criteria: list[dict[str, Any]], *, drop: bool = False, judge: dict[str, Any] | None = None
) -> ImportReport:
    evaluation = {
        "input_messages": {"type": "template", "template": [{"role": "user", "content": "{{item.q}}"}]},
        "testing_criteria": criteria,
    }
    return import_file(
        data.encode(),
        "data.jsonl",
        ImportFormat.OPENAI_EVALS,
        eval_content=json.dumps(evaluation).encode(),
        eval_source="eval.json",
        drop_unsupported=drop,
        judge=judge,
    )


def check(operation: str, reference: str = "{{item.a}}") -> dict[str, Any]:
    return {
        "type": "string_check",
        "name": operation,
        "input": "{{sample.output_text}}",
        "reference": reference,
        "operation": operation,
    }


# --- OpenAI Evals ------------------------------------------------------------------------------------------


def test_openai_criteria_become_named_assertions_rendered_per_item() -> None:
    report = fixture(
        "openai_data.jsonl",
        ImportFormat.OPENAI_EVALS,
        eval_content=(DATA / "openai_eval.json").read_bytes(),
        eval_source="openai_eval.json",
        drop_unsupported=True,  # its score_model and label_model criteria, without a judge: see below
    )
    first, second, _ = (row.to_json() for row in report.rows)
    assert first["input"] == (
        "[developer]\nClassify the ticket into Hardware, Software or Other.\n\n"
        "[user]\nMy laptop will not power on."
    )
    assert first["metadata"]["lang"] == "en"
    assert first["metadata"]["messages"][1] == {"role": "user", "content": "My laptop will not power on."}
    assert second["metadata"]["openai_sample"] == {"output_text": "Software"}
    names = [assertion["name"] for assertion in first["assert"]]
    assert names == ["exact label", "mentions label", "not unknown"]
    exact, mentions, not_unknown = first["assert"]
    assert exact["expected_output"] == "Hardware"
    assert second["assert"][0]["expected_output"] == "Software"  # {{item.category}} of that line
    assert exact["config"] == {"case_sensitive": True, "normalize_whitespace": False}
    assert mentions["config"]["case_sensitive"] is False
    assert not_unknown["grader_id"] == "not"


def test_openai_model_graders_are_refused_naming_file_line_and_criterion() -> None:
    with pytest.raises(ValidationError) as caught:
        fixture(
            "openai_data.jsonl",
            ImportFormat.OPENAI_EVALS,
            eval_content=(DATA / "openai_eval.json").read_bytes(),
            eval_source="openai_eval.json",
        )
    message = caught.value.message
    assert message.startswith(
        "openai_data.jsonl line 1: criterion 4 (quality) cannot be represented: it is judged by a model, and "
        "the file does not say where the judge is"
    )
    assert "assay import --judge judge.json" in message
    assert "(6 in all cannot be represented exactly; nothing was written" in message
    problems = [str(problem) for problem in caught.value.problems]
    assert problems[1].startswith("line 1: criterion 5 (tone) cannot be represented: it is judged by a model")


def test_openai_model_graders_are_dropped_and_listed_when_asked() -> None:
    report = fixture(
        "openai_data.jsonl",
        ImportFormat.OPENAI_EVALS,
        eval_content=(DATA / "openai_eval.json").read_bytes(),
        eval_source="openai_eval.json",
        drop_unsupported=True,
    )
    assert [len(row.assertions) for row in report.rows] == [3, 3, 3]
    assert [item.split(": it is")[0] for item in report.dropped] == [
        f"line {n}: criterion {c}" for n in (1, 2, 3) for c in ("4 (quality)", "5 (tone)")
    ]
    assert all("does not say where the judge is" in item for item in report.dropped)
    assert not any("llm-judge" in mapped for line in report.lines for mapped in line.mapped)


def test_an_unknown_similarity_metric_is_refused_and_dropped_only_when_asked() -> None:
    options: dict[str, Any] = {
        "eval_content": (DATA / "openai_eval_fuzzy.json").read_bytes(),
        "eval_source": "openai_eval_fuzzy.json",
    }
    with pytest.raises(ValidationError) as caught:
        fixture("openai_data.jsonl", ImportFormat.OPENAI_EVALS, **options)
    assert caught.value.message.startswith(
        "openai_data.jsonl line 1: criterion 2 (close) cannot be represented"
    )
    assert "fuzzy_match" in caught.value.message
    report = fixture("openai_data.jsonl", ImportFormat.OPENAI_EVALS, drop_unsupported=True, **options)
    assert [len(row.assertions) for row in report.rows] == [1, 1, 1]
    assert len(report.dropped) == 3


@pytest.mark.parametrize(
    ("criterion", "why"),
    [
        ({**check("eq"), "input": "{{item.a}}"}, "is not the answer"),
        (check("eq", "{{item.missing}}"), "names 'item.missing'"),
        (check("startswith"), "operation 'startswith'"),
        ({"type": "python", "name": "p", "source": "def grade(s, i): return 1"}, "'python'"),
        ({"type": "score_model", "name": "s", "model": "m", "pass_threshold": 0.5,
          "input": [{"role": "user", "content": "ok?"}]}, "does not say where the judge is"),
        ({"type": "label_model", "name": "l", "model": "m", "labels": ["a", "b"], "passing_labels": ["a"],
          "input": [{"role": "user", "content": "ok?"}]}, "does not say where the judge is"),
        ({"type": "text_similarity", "input": "{{sample.output_text}}", "reference": "x",
          "evaluation_metric": "bleu", "pass_threshold": 0.5}, "'bleu'"),
    ],
)  # fmt: skip
def test_what_assay_cannot_decide_the_same_way_is_refused(criterion: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError) as caught:
        openai('{"item": {"q": "hi", "a": "x"}}\n', [criterion])
    assert why in caught.value.message


JUDGE = {"base_url": "http://127.0.0.1:11434/v1", "api_key_env": "JUDGE_KEY"}


def test_model_graders_ask_the_imports_judge_their_messages_rendered_and_scale_mapped() -> None:
    report = fixture(
        "openai_data.jsonl",
        ImportFormat.OPENAI_EVALS,
        eval_content=(DATA / "openai_eval.json").read_bytes(),
        eval_source="openai_eval.json",
        judge=JUDGE,
    )
    first = report.rows[0].to_json()
    quality, tone = first["assert"][3:]
    assert (quality["name"], quality["grader_id"], tone["name"]) == ("quality", "llm-judge", "tone")
    config = quality["config"]
    assert config["model"] == "gpt-4o-mini"  # the criterion's, the import's judge naming none
    assert (config["base_url"], config["api_key_env"], config["temperature"]) == (
        "http://127.0.0.1:11434/v1",
        "JUDGE_KEY",
        0,
    )
    assert config["threshold"] == pytest.approx(0.75)  # 5.5 on 1..7
    assert config["rubric"].startswith(
        "system: Rate from 1 to 7 how well the answer [the agent_response] labels the ticket: My laptop"
    )
    assert "Give your score from 0 to 1 instead" in config["rubric"]
    assert tone["config"] == {
        **JUDGE,
        "model": "gpt-4o-mini",
        "mode": "classify",
        "rubric": "developer: Is the reply polite or rude?",
        "labels": ["polite", "rude"],
        "pass_labels": ["polite"],
    }
    named = fixture(
        "openai_data.jsonl",
        ImportFormat.OPENAI_EVALS,
        eval_content=(DATA / "openai_eval.json").read_bytes(),
        judge={**JUDGE, "model": "local-judge"},
    )
    assert named.rows[0].to_json()["assert"][3]["config"]["model"] == "local-judge"


@pytest.mark.parametrize(
    ("criterion", "why"),
    [
        ({"type": "score_model", "name": "s", "input": [{"role": "user", "content": "ok?"}],
          "sampling_params": {"seed": 1}}, "sampling_params seed"),
        ({"type": "score_model", "name": "s", "input": [{"role": "user", "content": "ok?"}],
          "range": [1, 1]}, "its range"),
        ({"type": "score_model", "name": "s", "input": "ok?"}, "not a list of messages"),
        ({"type": "label_model", "name": "l", "labels": ["a", "b"], "passing_labels": ["a", "b"],
          "input": [{"role": "user", "content": "ok?"}]}, "no answer could fail"),
    ],
)  # fmt: skip
def test_a_model_grader_assay_cannot_ask_the_same_way_is_refused(criterion: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError) as caught:
        openai('{"item": {"q": "hi", "a": "x"}}\n', [criterion], judge=JUDGE)
    assert why in caught.value.message


def test_string_checks_decide_as_openai_describes_them() -> None:
    from assay.graders.contract import catalog

    report = openai(
        '{"item": {"q": "hi", "a": "Paris"}}\n', [check("eq"), check("ne"), check("like"), check("ilike")]
    )
    verdicts = {}
    for assertion in report.rows[0].assertions:
        grader_class = catalog.lookup(assertion.grader_id)
        assert grader_class is not None
        grader = grader_class(assertion.grader_id, assertion.config)
        verdicts[assertion.name] = [
            grader.grade(answer, assertion.expected_output)["passed"]
            for answer in ("Paris", "paris", "in Paris")
        ]
    assert verdicts == {
        "eq": [True, False, False],
        "ne": [False, True, True],
        "like": [True, False, True],
        "ilike": [True, True, True],
    }


def test_an_openai_line_without_an_item_is_refused() -> None:
    with pytest.raises(ValidationError, match="has no 'item' object"):
        openai('{"q": "hi"}\n', [])


# --- Inspect ------------------------------------------------------------------------------------------------


def test_inspect_jsonl_keeps_ids_targets_choices_and_chat_inputs() -> None:
    rows = [row.to_json() for row in fixture("inspect_samples.jsonl", ImportFormat.INSPECT).rows]
    assert rows[0] == {
        "key": "q1",
        "input": "What is the boiling point of water at sea level in Celsius?",
        "expected_output": "100",
        "metadata": {"kind": "number"},
    }
    assert rows[1]["key"] == "2"
    assert rows[1]["input"] == [  # the messages themselves (docs/conversations.md)
        {"role": "system", "content": "Answer with one word."},
        {"role": "user", "content": "Which planet is known as the red planet?"},
    ]
    assert "messages" not in rows[1]["metadata"]
    assert rows[1]["expected_output"] == "Mars"  # several targets: the first shown, any of them checked
    assert rows[1]["assert"] == [
        {
            "grader_id": "any",
            "name": "target",
            "config": {
                "graders": [
                    {"grader_id": "string-match", "expected_output": "Mars"},
                    {"grader_id": "string-match", "expected_output": "mars"},
                ]
            },
        }
    ]
    assert rows[2]["input"].endswith("\n\nA) 4\nB) 6\nC) 7\nD) 9")
    assert rows[2]["metadata"]["choices"] == ["4", "6", "7", "9"]
    assert rows[2]["expected_output"] == "C"


def test_inspect_csv_and_json_read_the_same_fields() -> None:
    csv_rows = [row.to_json() for row in fixture("inspect_samples.csv", ImportFormat.INSPECT).rows]
    assert csv_rows[0] == {
        "key": "a1",
        "input": "What is 3 times 4?",
        "expected_output": "12",
        "metadata": {"difficulty": "easy"},
    }
    json_report = fixture("inspect_samples.json", ImportFormat.INSPECT)
    assert [row.key for row in json_report.rows] == ["j1", "j2"]
    assert json_report.rows[1].metadata == {"kind": "boolean"}
    assert json_report.lines[1].where == "case #2"


def test_an_inspect_sample_with_an_image_is_refused_naming_the_line() -> None:
    content = json.dumps(
        {"input": [{"role": "user", "content": [{"type": "image", "image": "a.png"}]}], "target": "cat"}
    )
    with pytest.raises(ValidationError, match=r"samples.jsonl line 1: message 1 cannot be represented"):
        import_file(content.encode() + b"\n", "samples.jsonl", ImportFormat.INSPECT)


# --- chat JSONL ---------------------------------------------------------------------------------------------


def test_chat_jsonl_expects_the_last_assistant_turn_and_keeps_the_turns_before() -> None:
    rows = [row.to_json() for row in fixture("chat.jsonl", ImportFormat.CHAT_JSONL).rows]
    assert rows[0]["input"] == [{"role": "user", "content": "How do I reset my password?"}]
    assert rows[0]["expected_output"] == "Open Settings, choose Security, then Reset password."
    assert rows[1]["expected_output"] == "No, sorry."  # text parts joined
    assert rows[1]["metadata"]["expected_message"] == {"content": [{"type": "text", "text": "No, sorry."}]}
    assert "expected_message" not in rows[0]["metadata"]
    assert rows[1]["input"][:2] == [
        {"role": "system", "content": "You are a terse support agent."},
        {"role": "user", "content": "Can I get a refund?"},
    ]
    assert rows[1]["input"][-1] == {"role": "user", "content": "And after that?"}
    assert len(rows[1]["input"]) == 4
    assert rows[1]["metadata"]["topic"] == "billing"


def test_chat_lines_that_cannot_be_represented_are_refused_or_dropped_and_listed() -> None:
    with pytest.raises(ValidationError, match=r"chat_bad\.jsonl line 2: message 1 cannot be represented"):
        fixture("chat_bad.jsonl", ImportFormat.CHAT_JSONL)
    report = fixture("chat_bad.jsonl", ImportFormat.CHAT_JSONL, drop_unsupported=True)
    assert len(report.rows) == 1
    assert report.dropped == [
        "line 2: the line: message 1: a 'image_url' block cannot be read here: only text, an assistant's "
        "tool_use and a user's tool_result"
    ]


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"messages": [{"role": "user", "content": "hi"}]}', "at least one turn"),
        ('{"messages": [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "x"}]}',
         "not the assistant"),
        ('{"messages": [{"role": "user", "content": "hi"}, '
         '{"role": "assistant", "content": null, "tool_calls": [{}]}]}', "tool calls"),
    ],
)  # fmt: skip
def test_a_chat_line_without_an_assistant_answer_is_refused(line: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        import_file(line.encode() + b"\n", "chat.jsonl", ImportFormat.CHAT_JSONL)


# --- every format ------------------------------------------------------------------------------------


def test_every_row_with_a_text_expected_output_is_read_back_by_the_suite_reader() -> None:
    reports = [
        fixture("promptfooconfig.yaml", ImportFormat.PROMPTFOO, base_dir=DATA),
        # their model-judged checks (grade:, score_model, label_model) dropped: no judge is given here
        fixture("promptfoo_csv_config.yaml", ImportFormat.PROMPTFOO, base_dir=DATA, drop_unsupported=True),
        fixture(
            "openai_data.jsonl",
            ImportFormat.OPENAI_EVALS,
            eval_content=(DATA / "openai_eval.json").read_bytes(),
            drop_unsupported=True,
        ),
        fixture("inspect_samples.csv", ImportFormat.INSPECT),
        fixture("chat.jsonl", ImportFormat.CHAT_JSONL),
    ]
    for report in reports:
        parsed = read_suite_file(b"".join(jsonl_rows(report.rows)), SuiteFormat.JSONL)
        assert [
            case.input if case.conversation is None else case.conversation.input_json()
            for case in parsed.cases
        ] == [row.input for row in report.rows]
        assert [case.expected_output for case in parsed.cases] == [row.expected_output for row in report.rows]


def test_oversized_input_is_one_clear_error() -> None:
    with pytest.raises(ValidationError, match="over 50 MiB"):
        import_file(b" " * (MAX_FILE_BYTES + 1), "big.jsonl", ImportFormat.CHAT_JSONL)
    long_line = json.dumps({"messages": [{"role": "user", "content": "x" * MAX_ROW_BYTES}]})
    with pytest.raises(ValidationError, match=r"big\.jsonl line 1: the line is over 1024 KiB"):
        import_file(long_line.encode(), "big.jsonl", ImportFormat.CHAT_JSONL)
    with pytest.raises(ValidationError, match=r"bad\.jsonl line 2: invalid JSON"):
        import_file(b'{"messages": []}\nnot json\n', "bad.jsonl", ImportFormat.CHAT_JSONL)


def test_row_count_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.services.suites.imports import reading

    monkeypatch.setattr(reading, "MAX_ROWS", 2)
    line = b'{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}\n'
    with pytest.raises(ValidationError, match="line 3: more than 2 rows"):
        import_file(line * 3, "many.jsonl", ImportFormat.CHAT_JSONL)


def test_a_line_separator_inside_a_json_string_does_not_cut_the_line() -> None:
    line = json.dumps({"input": "a\u2028b", "target": "c"}, ensure_ascii=False)
    (row,) = import_file(line.encode(), "s.jsonl", ImportFormat.INSPECT).rows
    assert row.input == "a\u2028b"


def test_keys_follow_the_suite_reader_s_rules() -> None:
    lines = b'{"id": "a", "input": "x", "target": "y"}\n{"id": "a", "input": "z", "target": "w"}\n'
    with pytest.raises(ValidationError, match="line 2") as caught:
        import_file(lines, "s.jsonl", ImportFormat.INSPECT)
    assert "'a'" in caught.value.message
    mixed = b'{"id": "a", "input": "x", "target": "y"}\n{"input": "z", "target": "w"}\n'
    with pytest.raises(ValidationError, match="line 2: no key, while line 1 has one"):
        import_file(mixed, "s.jsonl", ImportFormat.INSPECT)
    long_id = json.dumps({"id": "k" * 201, "input": "x", "target": "y"})
    with pytest.raises(ValidationError, match="longer than 200 characters"):
        import_file(long_id.encode(), "s.jsonl", ImportFormat.INSPECT)


def test_a_field_the_import_would_overwrite_refuses_the_line() -> None:
    line = json.dumps({"input": "q", "choices": ["a", "b"], "target": "A", "metadata": {"choices": 3}})
    with pytest.raises(ValidationError, match="the field 'choices' cannot be represented: is given twice"):
        import_file(line.encode(), "s.jsonl", ImportFormat.INSPECT)


def test_an_openai_item_input_of_messages_is_rendered_without_a_template() -> None:
    line = json.dumps(
        {"item": {"input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]}}
    )
    (row,) = import_file(line.encode(), "d.jsonl", ImportFormat.OPENAI_EVALS).rows
    assert row.input == "[system]\nBe brief.\n\n[user]\nHi"
    assert row.metadata["input"][1] == {"role": "user", "content": "Hi"}
