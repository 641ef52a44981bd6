// A form for a game's variant options from its JSON Schema (GET /api/games: "options").
// Each option shows its title in words, its one-line help (``description``) and, folded in a
// "why" toggle, the ruling behind it (``why``); an enum's values show their ``labels``.
// Handles what the games use: boolean, integer (with bounds), string enums and nullable
// integers (anyOf [integer, null]). ``read()`` returns only the values that differ from the
// defaults, so a table's options stay short.

import { h, words } from "./dom.js";

function kind(prop) {
  if (prop.enum) return "enum";
  if (prop.type === "boolean") return "boolean";
  if (prop.type === "integer" || prop.type === "number") return "integer";
  const alts = prop.anyOf || [];
  const num = alts.find((a) => a.type === "integer" || a.type === "number");
  if (num && alts.some((a) => a.type === "null")) return "nullable";
  if (prop.type === "string") return "string";
  return "json";
}

/** An option's value in words, as the form and the table's summary show it. */
export function valueWords(prop, v) {
  if (v === null || v === undefined || v === "") return "none";
  if (typeof v === "boolean") return v ? "on" : "off";
  return (prop.labels && prop.labels[v]) || words(v);
}

/** The "why" toggle of an option: the ruling behind it, only when the player asks. */
export function why(prop) {
  return prop.why ? h("details.why", h("summary", "why"), h("span.muted", prop.why)) : null;
}

export function optionsForm(schema) {
  const props = (schema && schema.properties) || {};
  const fields = [];
  const box = h("div.options");
  for (const [name, prop] of Object.entries(props)) {
    const k = kind(prop);
    const def = prop.default;
    const alt = (prop.anyOf || []).find((a) => a.type === "integer" || a.type === "number") || prop;
    let input;
    if (k === "boolean") input = h("input", { type: "checkbox", checked: !!def });
    else if (k === "enum") input = h("select", prop.enum.map((x) => h("option", { value: x, selected: x === def }, valueWords(prop, x))));
    else if (k === "integer" || k === "nullable") {
      input = h("input", { type: "number", step: 1, min: alt.minimum, max: alt.maximum,
        value: def === null || def === undefined ? "" : def, placeholder: k === "nullable" ? "none" : "" });
    } else input = h("input", { value: def === undefined ? "" : k === "json" ? JSON.stringify(def) : def });
    input.name = name;
    input.dataset.kind = k;
    fields.push({ name, k, input, def });
    const helpId = `opt-help-${name}`;
    if (prop.description) input.setAttribute("aria-describedby", helpId);
    box.append(h("div.opt", { dataset: { option: name } },
      h("label.opt-label", h("span.opt-title", prop.title || words(name)), input),
      prop.description ? h("span.opt-desc", { id: helpId }, prop.description) : null,
      why(prop)));
  }
  box.read = () => {
    const out = {};
    for (const { name, k, input, def } of fields) {
      let v;
      if (k === "boolean") v = input.checked;
      else if (k === "enum" || k === "string") v = input.value;
      else if (k === "integer") v = input.value === "" ? def : Number(input.value);
      else if (k === "nullable") v = input.value === "" ? null : Number(input.value);
      else v = input.value === "" ? def : JSON.parse(input.value);
      const changed = def === undefined ? v !== "" : JSON.stringify(v) !== JSON.stringify(def);
      if (changed) out[name] = v;
    }
    return out;
  };
  return box;
}
