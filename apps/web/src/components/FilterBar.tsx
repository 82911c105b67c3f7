"use client";

import type { RunStatus } from "@oah/core";
import { useEffect, useId, useRef, useState } from "react";
import { RECOVERY_STATES, RUN_ERROR_CODES, RUN_STATUSES } from "@/lib/constants";
import { hasFilters, type RunFilters, textFilterProblems } from "@/lib/filters";
import { MultiSelect } from "./MultiSelect";

type TextKey = "sessionId" | "workspaceId" | "runId";

/** A text filter: applied on Enter, on leaving the field, or after a pause in typing. */
function TextFilter({
  label,
  name,
  value,
  placeholder,
  problem,
  onApply,
}: {
  label: string;
  name: TextKey;
  value: string;
  placeholder: string;
  problem: string | undefined;
  onApply: (name: TextKey, value: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  const id = useId();
  const problemId = useId();
  const apply = useRef(onApply);
  apply.current = onApply;
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (draft.trim() === value) return;
    const timer = setTimeout(() => apply.current(name, draft.trim()), 600);
    return () => clearTimeout(timer);
  }, [draft, value, name]);
  return (
    <div className="text-filter">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        className={`mono${problem ? " is-invalid" : ""}`}
        value={draft}
        placeholder={placeholder}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={() => draft.trim() !== value && onApply(name, draft.trim())}
        onKeyDown={(event) => {
          if (event.key === "Enter") onApply(name, draft.trim());
        }}
      />
      {problem ? (
        <span id={problemId} className="field-problem" role="alert">
          {problem}
        </span>
      ) : null}
    </div>
  );
}

/** The free-text filters, in the order they are shown. */
const TEXT_FILTERS: { label: string; name: TextKey; placeholder: string }[] = [
  { label: "Session", name: "sessionId", placeholder: "session id" },
  { label: "Run", name: "runId", placeholder: "run_…" },
  { label: "Workspace", name: "workspaceId", placeholder: "workspace id" },
];

export function FilterBar({
  filters,
  statusCounts,
  onFilters,
  onClear,
}: {
  filters: RunFilters;
  statusCounts: Record<RunStatus, number> | undefined;
  onFilters: (f: Partial<RunFilters>) => void;
  onClear: () => void;
}) {
  const problems = textFilterProblems(filters);
  return (
    <section className="filter-bar" aria-label="Filters">
      <MultiSelect
        label="Status"
        options={RUN_STATUSES}
        selected={filters.status}
        counts={statusCounts}
        onChange={(status) => onFilters({ status })}
      />
      <MultiSelect
        label="Error code"
        options={RUN_ERROR_CODES}
        selected={filters.errorCode}
        onChange={(errorCode) => onFilters({ errorCode })}
      />
      <MultiSelect
        label="Recovery state"
        options={RECOVERY_STATES}
        selected={filters.recoveryState}
        onChange={(recoveryState) => onFilters({ recoveryState })}
      />
      {TEXT_FILTERS.map(({ label, name, placeholder }) => (
        <TextFilter
          key={name}
          label={label}
          name={name}
          value={filters[name]}
          placeholder={placeholder}
          problem={problems[name]}
          onApply={(field, value) => onFilters({ [field]: value })}
        />
      ))}
      <button type="button" className="btn" onClick={onClear} disabled={!hasFilters(filters)}>
        Clear filters
      </button>
    </section>
  );
}
