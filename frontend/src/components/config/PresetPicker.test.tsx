import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { PresetPicker, isSameJson } from "./PresetPicker";

const DEFAULTS = { aliases: { true: ["true", "yes"], false: ["false", "no"] }, case_sensitive: false };
const PRESETS = {
  english: { description: "English", config: DEFAULTS },
  french: { description: "French: oui/vrai", config: { aliases: { true: ["oui", "vrai"], false: ["non", "faux"] } } },
};

describe("PresetPicker", () => {
  it("replaces the whole config with the picked preset (the defaults for keys it leaves out)", () => {
    const onPick = vi.fn();
    render(<PresetPicker presets={PRESETS} defaults={DEFAULTS} value={{ case_sensitive: true }} onPick={onPick} />);
    expect((screen.getByLabelText("Preset") as HTMLSelectElement).value).toBe("");
    expect(screen.getByText(/replaces the whole configuration/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Preset"), { target: { value: "french" } });
    expect(onPick).toHaveBeenCalledWith({ aliases: { true: ["oui", "vrai"], false: ["non", "faux"] }, case_sensitive: false });
  });

  it("names the preset the config still is, whatever the key order", () => {
    const value = { case_sensitive: false, aliases: { false: ["non", "faux"], true: ["oui", "vrai"] } };
    render(<PresetPicker presets={PRESETS} defaults={DEFAULTS} value={value} onPick={() => {}} />);
    expect((screen.getByLabelText("Preset") as HTMLSelectElement).value).toBe("french");
  });

  it("is absent for a grader without presets", () => {
    render(<PresetPicker presets={{}} defaults={DEFAULTS} value={DEFAULTS} onPick={() => {}} />);
    expect(screen.queryByLabelText("Preset")).toBeNull();
  });
});

describe("isSameJson", () => {
  it("compares values, not key order, and keeps list order", () => {
    expect(isSameJson({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(isSameJson([1, 2], [2, 1])).toBe(false);
    expect(isSameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
  });
});
