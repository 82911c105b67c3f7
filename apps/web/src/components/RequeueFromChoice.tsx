import { useId } from "react";
import { type RequeueFrom, START_OVER } from "@/lib/durable/requeue-from";

/**
 * Where a requeue starts: from the last checkpoint (the default, labelled by what the caller
 * knows of it) or over from the first step (docs/spec.md §7).
 */
export function RequeueFromChoice({
  resumeLabel,
  value,
  onChange,
  disabled = false,
}: {
  resumeLabel: string;
  value: RequeueFrom;
  onChange: (from: RequeueFrom) => void;
  disabled?: boolean;
}) {
  const name = useId();
  const option = (from: RequeueFrom, label: string) => (
    <label className="choice">
      <input
        type="radio"
        name={name}
        checked={value === from}
        disabled={disabled}
        onChange={() => onChange(from)}
      />{" "}
      {label}
    </label>
  );
  return (
    <fieldset className="choices">
      <legend>Where it starts</legend>
      {option("checkpoint", resumeLabel)}
      {option("start", START_OVER)}
    </fieldset>
  );
}
