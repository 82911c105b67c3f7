"use client";

import type { StorageOverview } from "@oah/contract";
import { useEffect, useId, useRef, useState } from "react";
import { STORAGE_FILTERS } from "@/lib/storage-filters/table";
import { type FilterName, filterProblems, hasFilters, type RunFilters } from "@/lib/storage-filters/view";
import { MultiSelect } from "./MultiSelect";

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
  name: FilterName;
  value: string;
  placeholder: string;
  problem: string | undefined;
  onApply: (name: FilterName, value: string) => void;
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

/** Every Storage filter, as its entry in the filter table says to show it. */
export function FilterBar({
  filters,
  overview,
  onFilters,
  onClear,
}: {
  filters: RunFilters;
  overview: StorageOverview | undefined;
  onFilters: (f: Partial<RunFilters>) => void;
  onClear: () => void;
}) {
  const problems = filterProblems(filters);
  // A control hands back a value of the kind its entry declares, so it is the filter's own type.
  const apply = (name: FilterName, value: string | string[]) => onFilters({ [name]: value });
  return (
    <section className="filter-bar" aria-label="Filters">
      {(Object.keys(STORAGE_FILTERS) as FilterName[]).map((name) => {
        const { label, control } = STORAGE_FILTERS[name];
        const value = filters[name];
        return control.kind === "list" ? (
          <MultiSelect
            key={name}
            label={label}
            options={control.options}
            selected={value as readonly string[]}
            counts={overview && control.counts?.(overview)}
            onChange={(values) => apply(name, values)}
          />
        ) : (
          <TextFilter
            key={name}
            label={label}
            name={name}
            value={value as string}
            placeholder={control.placeholder}
            problem={problems[name]}
            onApply={apply}
          />
        );
      })}
      <button type="button" className="btn" onClick={onClear} disabled={!hasFilters(filters)}>
        Clear filters
      </button>
    </section>
  );
}
