"use client";

import { type FocusEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";

/**
 * A compact multi-select: a button named by its label that opens a group of checkboxes of the
 * same name. Space toggles, Escape closes and returns focus to the button.
 */
export function MultiSelect<T extends string>({
  label,
  options,
  selected,
  onChange,
  counts,
}: {
  label: string;
  options: readonly T[];
  selected: readonly T[];
  onChange: (next: T[]) => void;
  counts?: Partial<Record<T, number>>;
}) {
  const [open, setOpen] = useState(false);
  // The URL is the source of truth, but it changes a moment after a click: show the choice at once.
  const [local, setLocal] = useState<readonly T[]>(selected);
  const key = selected.join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `selected`
  useEffect(() => setLocal(selected), [key]);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const valueId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onPointer);
    return () => document.removeEventListener("mousedown", onPointer);
  }, [open]);

  const summary =
    local.length === 0 ? "any" : local.length <= 2 ? local.join(", ") : `${local.length} selected`;

  const set = (next: readonly T[]) => {
    const ordered = options.filter((o) => next.includes(o));
    setLocal(ordered);
    onChange(ordered);
  };
  const toggle = (option: T, on: boolean) => set(on ? [...local, option] : local.filter((v) => v !== option));

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape" && open) {
      event.stopPropagation();
      setOpen(false);
      button.current?.focus();
    }
  };
  // Focus leaving the whole control (not moving between its parts) closes it.
  const onBlur = (event: FocusEvent) => {
    if (open && root.current && !root.current.contains(event.relatedTarget as Node | null)) setOpen(false);
  };

  return (
    <div className={`multiselect${local.length ? " is-active" : ""}`} ref={root}>
      <button
        onKeyDown={onKeyDown}
        onBlur={onBlur}
        ref={button}
        type="button"
        className="ms-button"
        aria-label={label}
        aria-describedby={valueId}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((v) => !v)}
      >
        <span className="ms-label">{label}</span>
        <span id={valueId} className="ms-value">
          {summary}
        </span>
        <span aria-hidden="true" className="ms-caret">
          ▾
        </span>
      </button>
      {open ? (
        <fieldset id={panelId} className="ms-panel" onKeyDown={onKeyDown} onBlur={onBlur}>
          <legend className="visually-hidden">{label}</legend>
          {options.map((option) => {
            const count = counts?.[option];
            const countId = `${panelId}-${option}-count`;
            return (
              <label key={option} className="ms-option">
                <input
                  type="checkbox"
                  aria-label={option}
                  checked={local.includes(option)}
                  onChange={(event) => toggle(option, event.target.checked)}
                  aria-describedby={count === undefined ? undefined : countId}
                />
                <span className="mono">{option}</span>
                {count === undefined ? null : (
                  <span id={countId} className="ms-count">
                    {count.toLocaleString("en-US")}
                  </span>
                )}
              </label>
            );
          })}
          {local.length ? (
            <button type="button" className="btn btn-small ms-clear" onClick={() => set([])}>
              Any {label.toLowerCase()}
            </button>
          ) : null}
        </fieldset>
      ) : null}
    </div>
  );
}
