"""promptfoo configs and CSV tests become suite rows whose assertions decide as promptfoo's do, or are
refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.errors import ValidationError
from assay.graders.contract import catalog
from assay.services.suites.imports import ImportFormat, ImportReport, import_file

DATA = Path(__file__).resolve().parents[2] / "data" / "imports"


def promptfoo(
    text: str, *, drop: bool = False, name: str = "promptfooconfig.yaml", **options: Any
) -> ImportReport:
    return import_file(text.encode(), name, ImportFormat.PROMPTFOO, drop_unsupported=drop, **options)


def one_assertion(assertion_yaml: str) -> dict[str, Any]:
    """The one assertion a single-test config with this assertion makes."""
    report = promptfoo(
        f'prompts: ["{{{{q}}}}"]\ntests:\n  - vars: {{q: hi}}\n    assert:\n      - {assertion_yaml}\n'
    )
    (row,) = report.rows
    (assertion,) = row.to_json()["assert"]
    return assertion


def grade(assertion: dict[str, Any], answer: str) -> bool:
    """Whether Assay passes ``answer`` under ``assertion`` (the row's own check)."""
    grader_class = catalog.lookup(assertion["grader_id"])
    assert grader_class is not None
    grader = grader_class(assertion["grader_id"], assertion.get("config", {}))
    return bool(grader.grade(answer, assertion.get("expected_output"))["passed"])


def test_the_fixture_config_renders_each_prompt_and_maps_every_assertion() -> None:
    path = DATA / "promptfooconfig.yaml"
    report = import_file(path.read_bytes(), path.name, ImportFormat.PROMPTFOO, base_dir=DATA)
    rows = [row.to_json() for row in report.rows]
    assert [row["input"] for row in rows] == [
        "You are a support bot. Answer briefly: What is the capital of France?",
        "You are a support bot. Answer briefly: Give the order status as JSON",
        "You are a support bot. Answer briefly: Say hello",
    ]
    first = rows[0]
    assert first["metadata"]["vars"] == {"product": "Widget", "question": "What is the capital of France?"}
    assert first["metadata"]["description"] == "capital"
    # defaultTest's assertion comes first in every test, as promptfoo runs it
    assert all(row["assert"][0]["grader_id"] == "not" for row in rows)
    assert first["assert"][2] == {
        "grader_id": "contains",
        "config": {"case_sensitive": False, "normalize_whitespace": False, "whole_words": False},
        "expected_output": "paris",
        "weight": 2,
        "name": "mentions-paris",
    }
    assert rows[1]["metadata"]["kind"] == "json"
    assert rows[2]["threshold"] == 0.5
    assert "threshold" not in first
    assert [line.place for line in report.lines] == [("line", 12), ("line", 22), ("line", 35)]
    assert any("model-judged" in note for note in report.lines[2].notes)


@pytest.mark.parametrize(
    ("assertion", "answer", "passes"),
    [
        ("{type: equals, value: Paris}", "Paris", True),
        ("{type: equals, value: Paris}", "paris", False),  # promptfoo's equals is exact: case counts
        ("{type: equals, value: Paris}", "Paris ", False),  # ... and whitespace too
        ("{type: equals, value: 3.0}", "3", True),  # YAML 3.0 is JavaScript's 3
        ("{type: contains, value: yes}", "yesterday", True),  # a plain substring, no whole-word rule
        ("{type: contains, value: Yes}", "yes", False),
        ("{type: icontains, value: PARIS}", "in paris", True),
        ("{type: not-contains, value: London}", "Paris", True),
        ("{type: not-contains, value: London}", "London", False),
        ("{type: starts-with, value: 'a.b ('}", "a.b (c)", True),
        ("{type: starts-with, value: 'a.b ('}", "axb (c)", False),  # the literal's dot is escaped
        ("{type: starts-with, value: 'a.b ('}", "x a.b (", False),  # anchored at the start
        ("{type: regex, value: 'Paris|Lyon'}", "to Lyon", True),
        ("{type: is-json}", '{"a": 1}', True),
        ("{type: is-json}", 'here: {"a": 1}', False),
        ("{type: is-json}", '```json\n{"a": 1}\n```', False),  # promptfoo parses the whole output
        ("{type: is-json, value: {type: object, required: [a]}}", '{"b": 1}', False),
        ("{type: equals, value: {a: 1}}", '{"a": 1}', True),  # an object value compares JSON
        ("{type: contains-any, value: 'Hi, Hello'}", "Hello there", True),
        ("{type: contains-all, value: [Hi, there]}", "Hi you", False),
        ("{type: not-icontains-any, value: [x, y]}", "ab", True),
    ],
)
def test_each_assertion_decides_as_promptfoo_does(assertion: str, answer: str, passes: bool) -> None:
    assert grade(one_assertion(assertion), answer) is passes


def test_yaml_is_read_as_promptfoo_reads_it_yes_is_text_and_012_is_twelve() -> None:
    assert one_assertion("{type: equals, value: yes}")["expected_output"] == "yes"
    assert one_assertion("{type: equals, value: 012}")["expected_output"] == "12"
    assert one_assertion("{type: equals, value: 1e3}")["expected_output"] == "1000"


def test_similar_keeps_promptfoo_s_default_threshold() -> None:
    assert one_assertion("{type: similar, value: Hello}") == {
        "grader_id": "semantic",
        "config": {"threshold": 0.75},
        "expected_output": "Hello",
    }


MODEL_JUDGED = (
    'prompts: ["{{q}}"]\n'
    "tests:\n"
    "  - vars: {q: hi}\n"
    "    assert:\n"
    "      - {type: equals, value: hello}\n"
    "      - {type: llm-rubric, value: Is polite, threshold: 0.7, provider: 'openai:gpt-4o'}\n"
    "      - {type: grade, value: Is friendly}\n"
    "      - {type: not-llm-rubric, value: Is rude}\n"
)


JUDGE = {"base_url": "http://127.0.0.1:11434/v1", "model": "judge-1", "api_key_env": None}


def test_model_judged_checks_without_a_judge_are_refused_saying_how_to_give_one() -> None:
    with pytest.raises(ValidationError) as caught:
        promptfoo(MODEL_JUDGED)
    message = caught.value.message
    assert message.startswith(
        "promptfooconfig.yaml line 3: assertion 2 (llm-rubric) at line 6 cannot be represented: it is judged "
        "by a model, and the file does not say where the judge is: give the import one (assay import --judge"
    )
    assert "(3 in all cannot be represented exactly; nothing was written" in message
    problems = [str(problem) for problem in caught.value.problems]
    assert problems[1].startswith("line 3: assertion 3 (grade) at line 7 cannot be represented: promptfoo")
    assert problems[2].startswith("line 3: assertion 4 (not-llm-rubric) at line 8 cannot be represented")


def test_model_judged_checks_without_a_judge_are_dropped_and_listed_when_asked() -> None:
    report = promptfoo(MODEL_JUDGED, drop=True)
    assert [a.grader_id for a in report.rows[0].assertions] == ["string-match"]
    starts = [
        "line 3: assertion 2 (llm-rubric) at line 6: it is judged by a model",
        "line 3: assertion 3 (grade) at line 7: promptfoo reads 'grade:'",
        "line 3: assertion 4 (not-llm-rubric) at line 8: it is judged by a model",
    ]
    assert len(report.dropped) == len(starts)
    for item, start in zip(report.dropped, starts, strict=True):
        assert item.startswith(start)


def test_llm_rubric_asks_the_imports_judge_with_its_rubric_and_threshold() -> None:
    config = MODEL_JUDGED.replace("      - {type: grade, value: Is friendly}\n", "")
    report = promptfoo(config, judge=JUDGE)
    equals, rubric, negated = report.rows[0].to_json()["assert"]
    assert equals["grader_id"] == "string-match"
    assert rubric == {
        "grader_id": "llm-judge",
        "config": {**JUDGE, "mode": "rubric", "rubric": "Is polite", "threshold": 0.7},
    }
    assert negated["grader_id"] == "not"
    assert negated["config"]["grader"]["config"]["rubric"] == "Is rude"
    notes = " ".join(report.lines[0].notes)
    assert "model-judged" in notes
    assert "its provider is not used" in notes


def test_a_rubric_assay_would_refuse_is_refused_with_the_judges_reason() -> None:
    with pytest.raises(ValidationError, match="llm-judge grader refuses it"):
        promptfoo(
            'prompts: ["{{q}}"]\ntests:\n  - vars: {q: hi}\n    assert:\n'
            "      - {type: llm-rubric, value: ok, threshold: 0}\n",
            judge=JUDGE,
        )


def test_assertion_values_are_rendered_with_the_test_s_vars() -> None:
    report = promptfoo(
        'prompts: ["Capital of {{country}}?"]\n'
        "tests:\n  - vars: {country: France, city: Paris}\n"
        "    assert:\n      - {type: equals, value: '{{ city }}'}\n"
    )
    assert report.rows[0].input == "Capital of France?"
    assert report.rows[0].assertions[0].expected_output == "Paris"


def test_unsupported_assertions_refuse_the_import_naming_file_line_and_assertion() -> None:
    path = DATA / "promptfoo_unsupported.yaml"
    with pytest.raises(ValidationError) as caught:
        import_file(path.read_bytes(), path.name, ImportFormat.PROMPTFOO)
    message = caught.value.message
    assert message.startswith("promptfoo_unsupported.yaml line 3: assertion 2 (javascript) at line 8")
    assert "nothing was written" in message
    problems = [str(problem) for problem in caught.value.problems]
    assert problems[1].startswith("line 10: assertion 1 (contains-json) at line 13 cannot be represented")


def test_drop_unsupported_drops_and_lists_each_one() -> None:
    path = DATA / "promptfoo_unsupported.yaml"
    report = import_file(path.read_bytes(), path.name, ImportFormat.PROMPTFOO, drop_unsupported=True)
    assert len(report.rows) == 2
    assert [a.grader_id for a in report.rows[0].assertions] == ["string-match"]
    assert report.rows[1].assertions == []
    assert len(report.dropped) == 2
    assert report.dropped[0].startswith("line 3: assertion 2 (javascript) at line 8:")
    assert report.dropped[1].startswith("line 10: assertion 1 (contains-json)")


@pytest.mark.parametrize(
    ("assertion", "why"),
    [
        ("{type: llm-rubric, value: ok}", "does not say where the judge is"),
        ("{type: not-llm-rubric, value: rude}", "does not say where the judge is"),
        ("{type: not-is-json}", "could never pass"),  # Assay's json grader: not JSON is unreadable
        ("{type: not-equals, value: {a: 1}}", "could never pass"),
        ("{type: regex, value: '(?=a)b'}", "RE2"),
        ("{type: equals, value: ''}", "nothing to match"),
        ("{type: contains, value: x, threshold: 0.5}", "a threshold on 'contains'"),
        ("{type: contains, value: x, transform: output.trim()}", "transform"),
        ("{type: python, value: 'len(output) < 5'}", "no Assay grader decides as promptfoo's 'python'"),
    ],
)
def test_what_assay_cannot_decide_the_same_way_is_refused(assertion: str, why: str) -> None:
    with pytest.raises(ValidationError, match="cannot be represented") as caught:
        one_assertion(assertion)
    assert why in caught.value.message


def test_several_prompts_make_one_row_per_prompt_and_name_it() -> None:
    report = promptfoo(
        "prompts:\n  - {raw: 'A: {{q}}', label: short}\n  - 'Please answer: {{q}}'\n"
        "tests:\n  - vars: {q: hi}\n    assert: [{type: equals, value: hello}]\n"
    )
    assert [row.input for row in report.rows] == ["A: hi", "Please answer: hi"]
    assert [row.metadata["prompt"] for row in report.rows] == ["short", "Please answer: {{q}}"]


def test_without_a_prompt_the_lone_var_or_the_input_var_is_the_input() -> None:
    assert promptfoo("tests:\n  - vars: {question: 'Why?'}\n").rows[0].input == "Why?"
    assert promptfoo("tests:\n  - vars: {input: 'Why?', lang: en}\n").rows[0].input == "Why?"
    with pytest.raises(ValidationError, match="none named 'input'"):
        promptfoo("tests:\n  - vars: {a: x, b: y}\n")
    assert promptfoo("tests:\n  - vars: {a: x, b: y}\n", prompt="{{a}}-{{b}}").rows[0].input == "x-y"


@pytest.mark.parametrize(
    ("config", "why"),
    [
        ('prompts: ["{{ q | upper }}"]\ntests:\n  - vars: {q: hi}\n', "syntax beyond {{name}}"),
        ('prompts: ["{{ missing }}"]\ntests:\n  - vars: {q: hi}\n', "names 'missing'"),
        ('prompts: ["{{q}}"]\ntests:\n  - vars: {q: [a, b]}\n', "is a list"),
        ('prompts: ["{{q}}"]\ntests:\n  - vars: {q: hi}\n    options: {transform: x}\n', "transform"),
    ],
)
def test_a_test_whose_input_cannot_be_rendered_exactly_is_refused(config: str, why: str) -> None:
    with pytest.raises(ValidationError) as caught:
        promptfoo(config)
    assert why in caught.value.message


def test_csv_tests_read_expected_columns_as_promptfoo_does() -> None:
    path = DATA / "promptfoo_tests.csv"
    report = import_file(
        path.read_bytes(), path.name, ImportFormat.PROMPTFOO, prompt="Q: {{question}}", drop_unsupported=True
    )
    rows = [row.to_json() for row in report.rows]
    assert rows[0]["input"] == "Q: What is 2+2?"
    assert rows[0]["metadata"]["topic"] == "maths"
    assert rows[0]["metadata"]["description"] == "sum"
    kinds = [[a["grader_id"] for a in row["assert"]] for row in rows]
    assert kinds == [
        ["string-match", "contains"],
        ["contains", "not"],
        ["string-match"],  # grade: is llm-rubric, without a judge here (dropped); plain text is equals
        ["semantic", "regex"],
    ]
    assert [item.split(": it is")[0] for item in report.dropped] == ["line 4: assertion 1 (llm-rubric)"]
    assert rows[2]["assert"][0]["expected_output"] == "Hello"
    assert rows[3]["assert"][0]["config"] == {"threshold": 0.9}  # similar(0.9):


def test_a_config_reads_the_csv_it_refers_to_only_from_its_own_folder() -> None:
    path = DATA / "promptfoo_csv_config.yaml"
    report = import_file(
        path.read_bytes(), path.name, ImportFormat.PROMPTFOO, base_dir=DATA, drop_unsupported=True
    )  # its grade: cell is a model-judged check
    assert [row.input for row in report.rows][:1] == ["Q: What is 2+2?"]
    assert report.lines[0].where == "promptfoo_tests.csv line 2"
    with pytest.raises(ValidationError, match="refers to a file"):
        import_file(path.read_bytes(), path.name, ImportFormat.PROMPTFOO)  # no folder: nothing read
    escaping = b"prompts: ['{{q}}']\ntests: file://../../../etc/passwd.csv\n"
    with pytest.raises(ValidationError, match="outside the config's folder"):
        import_file(escaping, "c.yaml", ImportFormat.PROMPTFOO, base_dir=DATA)


def test_a_csv_cell_naming_an_unknown_type_is_refused_not_compared_as_text() -> None:
    content = b"question,__expected\nWhy?,javascript: output.length < 10\n"
    with pytest.raises(ValidationError, match="'javascript'"):
        import_file(content, "t.csv", ImportFormat.PROMPTFOO)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"tests: [unclosed\n", "not valid YAML"),
        (b"- just a list\n", "expected a promptfoo config"),
        (b"tests: 3\n", "'tests' must be a list"),
        (b"\xff\xfe", "not valid UTF-8"),
        (b"tests: []\n", "holds no cases"),
    ],
)
def test_a_file_that_is_not_a_promptfoo_config_is_one_clear_error(content: bytes, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        import_file(content, "c.yaml", ImportFormat.PROMPTFOO)


def test_aliases_that_expand_past_the_cap_or_refer_to_themselves_are_refused() -> None:
    levels = "".join(
        f"{c}: &{c} [{','.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    bomb = (
        "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + levels + "prompts: ['{{q}}']\ntests:\n  - vars: {q: hi, big: *i}\n"
    )
    with pytest.raises(ValidationError, match="aliases expand past"):
        promptfoo(bomb)
    with pytest.raises(ValidationError, match="an alias refers to a value that holds it"):
        promptfoo("prompts: ['{{q}}']\ntests:\n  - &t {vars: {q: hi, self: *t}}\n")
    shared = (
        "common: &c [{type: equals, value: hi}]\n"
        "tests:\n  - {vars: {q: a}, assert: *c}\n  - {vars: {q: b}, assert: *c}\n"
    )
    assert [len(row.assertions) for row in promptfoo(shared).rows] == [1, 1]  # an ordinary alias is read


def test_a_grader_unavailable_on_this_machine_is_still_mapped_and_noted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assay.graders.semantic import embedding

    monkeypatch.setattr(embedding, "unavailable_reason", lambda: "pip install 'assay[semantic]'")
    report = promptfoo(
        'prompts: ["{{q}}"]\ntests:\n  - vars: {q: hi}\n    assert: [{type: not-similar, value: bye}]\n'
    )
    assert report.rows[0].assertions[0].grader_id == "not"
    assert any("the semantic grader is unavailable here" in note for note in report.lines[0].notes)


def test_options_may_name_only_a_grading_provider() -> None:
    config = (
        "defaultTest:\n  options: {provider: 'openai:gpt-4o-mini'}\n"
        "tests:\n  - vars: {q: a}\n    options: {provider: {id: 'openai:chat:gpt-4o'}}\n"
        "    assert: [{type: equals, value: a}]\n"
    )
    assert [a.grader_id for a in promptfoo(config).rows[0].assertions] == ["string-match"]
    with pytest.raises(ValidationError, match="defaultTest: its options cannot be represented: transform"):
        promptfoo("defaultTest:\n  options: {transform: output.trim()}\ntests:\n  - vars: {q: a}\n")
