import { describe, expect, it } from "vitest";
import { pathOf, problemText } from "../../api/errors";
import { EMPTY_TARGET, targetFromDraft, targetProblems } from "./TargetForm";
import { outcomeOf } from "../verdicts/outcome";

describe("targetFromDraft", () => {
  it("builds an HTTP target with its headers, dropping blank header names", () => {
    const built = targetFromDraft({
      ...EMPTY_TARGET,
      url: " http://127.0.0.1:9000/answer ",
      headers: [
        { name: "X-Key", value: "secret" },
        { name: " ", value: "ignored" },
      ],
    });
    expect(built).toEqual({
      target: {
        type: "http",
        url: "http://127.0.0.1:9000/answer",
        method: "POST",
        headers: { "X-Key": "secret" },
        response_path: "output",
      },
    });
  });

  it("refuses a body template that is not JSON", () => {
    expect(targetFromDraft({ ...EMPTY_TARGET, bodyTemplate: "{nope" })).toEqual({
      problem: "The body template is not valid JSON",
    });
  });

  it("builds an OpenAI-compatible target; an empty key variable means none", () => {
    const built = targetFromDraft({ ...EMPTY_TARGET, type: "openai", model: "m", apiKeyEnv: "" });
    expect(built).toEqual({ target: { type: "openai", model: "m", base_url: "https://api.openai.com/v1", api_key_env: null } });
  });

  it("builds a recorded target from responses by case id, text or null only", () => {
    expect(targetFromDraft({ ...EMPTY_TARGET, type: "recorded", responsesJson: '{"1": "yes", "2": null}' })).toEqual({
      target: { type: "recorded", responses: { "1": "yes", "2": null } },
    });
    expect(targetFromDraft({ ...EMPTY_TARGET, type: "recorded", responsesJson: '{"1": 3}' })).toEqual({
      problem: "The response of case 1 must be text or null",
    });
  });
});

describe("outcomeOf", () => {
  it("tells errors, invalid answers, passes and fails apart", () => {
    expect(outcomeOf({ passed: false, error: "timeout_after_retries", match_status: null })).toBe("error");
    expect(outcomeOf({ passed: false, error: null, match_status: "invalid_response" })).toBe("invalid");
    expect(outcomeOf({ passed: false, error: null, match_status: "invalid_expected" })).toBe("invalid");
    expect(outcomeOf({ passed: true, error: null, match_status: "match" })).toBe("passed");
    expect(outcomeOf({ passed: false, error: null, match_status: "mismatch" })).toBe("failed");
  });
});

describe("targetProblems", () => {
  it("gives each target problem to its field and keeps the rest", () => {
    const { byField, rest } = targetProblems([
      { loc: ["target", "http", "url"], message: "a URL starts with http:// or https://: write http://x" },
      { loc: ["target", "openai", "model"], message: "String should have at least 1 character" },
      { loc: ["target", "api_key_env"], message: "secret 'X' is not available to targets" },
      { loc: ["suite_id"], message: "Input should be greater than or equal to 1" },
      { loc: ["target"], message: "about the whole target" },
    ]);
    expect(byField).toEqual({
      url: ["a URL starts with http:// or https://: write http://x"],
      model: ["String should have at least 1 character"],
      api_key_env: ["secret 'X' is not available to targets"],
    });
    expect(rest).toEqual([
      { loc: ["suite_id"], message: "Input should be greater than or equal to 1" },
      { loc: ["target"], message: "about the whole target" },
    ]);
  });
});

describe("problemText and pathOf", () => {
  it("write a loc as the CLI does, and as a form path", () => {
    expect(problemText({ loc: ["line", 4], message: "invalid JSON" })).toBe("line 4: invalid JSON");
    expect(problemText({ loc: ["config", "aliases", "false", 0], message: "m" })).toBe("config.aliases.false[0]: m");
    expect(problemText({ loc: [], message: "the file holds no cases" })).toBe("the file holds no cases");
    expect(pathOf(["graders", 1, "config", "aliases", "true"])).toBe("graders[1].config.aliases.true");
  });
});
