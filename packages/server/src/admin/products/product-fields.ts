import { html, type Html } from '../../pages/html.ts';
import type { FormError } from './product-form.ts';

/**
 * The inputs of the product forms: each labelled, its hint and its error tied to it with
 * aria-describedby, and a refused value shown again as typed.
 */

/** What the product forms read and show: a value per field and the refusal, if any. */
export interface FormState {
  /** The form's key on its page; ids of its inputs start with it, so several forms can share a page. */
  key: string;
  values: Record<string, string>;
  error?: FormError;
}

/** A form's state: the refused values when it is the form that failed, else the current ones. */
export function stateOf(key: string, current: Record<string, string>, error?: FormError): FormState {
  return error?.form === key ? { key, values: error.values, error } : { key, values: current };
}

const idOf = (state: FormState, name: string) => `${state.key}-${name}`.replace(/[^A-Za-z0-9_-]/g, '-');

/** The refusal of the whole form (a message that names no field of it), above its fields. */
export function formNotice(state: FormState): Html {
  if (!state.error || state.error.field) return html``;
  return html`<p class="notice error" role="alert">${state.error.message}</p>`;
}

function described(state: FormState, name: string, hint?: string) {
  const id = idOf(state, name);
  const error = state.error?.field === name ? state.error.message : undefined;
  const ids = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  const after = html`${hint ? html`<span class="hint" id="${id}-hint">${hint}</span>` : ''}${
    error ? html`<span class="field-error" id="${id}-error" role="alert">${error}</span>` : ''
  }`;
  return { id, error, ids, after };
}

export function textField(
  state: FormState,
  name: string,
  label: string,
  options: { hint?: string; required?: boolean; inputmode?: 'decimal' | 'numeric' } = {},
): Html {
  const d = described(state, name, options.hint);
  // The hint and the error sit beside the label, not in it: they describe the field, not name it.
  return html`<div class="field">
    <label for="${d.id}">${label}</label>
    <input
      type="text"
      id="${d.id}"
      name="${name}"
      value="${state.values[name] ?? ''}"
      ${options.inputmode ? html`inputmode="${options.inputmode}"` : ''}
      ${options.required ? html`required` : ''}
      ${d.ids ? html`aria-describedby="${d.ids}"` : ''}
      ${d.error ? html`aria-invalid="true"` : ''}
    />${d.after}
  </div>`;
}

export function textArea(state: FormState, name: string, label: string, hint?: string): Html {
  const d = described(state, name, hint);
  return html`<div class="field">
    <label for="${d.id}">${label}</label>
    <textarea
      id="${d.id}"
      name="${name}"
      rows="5"
      ${d.ids ? html`aria-describedby="${d.ids}"` : ''}
      ${d.error ? html`aria-invalid="true"` : ''}
    >
${state.values[name] ?? ''}</textarea
    >${d.after}
  </div>`;
}

export function checkbox(state: FormState, name: string, label: string, hint?: string): Html {
  const d = described(state, name, hint);
  return html`<div class="field check">
    <input
      type="checkbox"
      id="${d.id}"
      name="${name}"
      ${state.values[name] === 'on' ? html`checked` : ''}
      ${d.ids ? html`aria-describedby="${d.ids}"` : ''}
    />
    <label for="${d.id}">${label}</label>${d.after}
  </div>`;
}

export function select(
  state: FormState,
  name: string,
  label: string,
  choices: readonly { value: string; label: string }[],
): Html {
  const d = described(state, name);
  return html`<div class="field">
    <label for="${d.id}">${label}</label>
    <select
      id="${d.id}"
      name="${name}"
      ${d.ids ? html`aria-describedby="${d.ids}"` : ''}
      ${d.error ? html`aria-invalid="true"` : ''}
    >
      ${choices.map(
        (c) =>
          html`<option value="${c.value}" ${state.values[name] === c.value ? html`selected` : ''}>
            ${c.label}
          </option>`,
      )}
    </select>
    ${d.after}
  </div>`;
}

/**
 * Fields under one legend. A refusal naming the group itself (`attributes`, `v0.measurements`),
 * not one of its fields, is shown inside it, after its fields; the hint before them.
 */
export function fieldGroup(
  state: FormState,
  name: string,
  legend: string,
  fields: Html,
  hint?: string,
): Html {
  const d = described(state, name, hint);
  return html`<fieldset ${d.ids ? html`aria-describedby="${d.ids}"` : ''}>
    <legend>${legend}</legend>
    ${hint ? html`<span class="hint" id="${d.id}-hint">${hint}</span>` : ''} ${fields}
    ${d.error ? html`<span class="field-error" id="${d.id}-error" role="alert">${d.error}</span>` : ''}
  </fieldset>`;
}
