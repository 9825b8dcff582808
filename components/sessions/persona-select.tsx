'use client';

// The persona a new session talks to: the owner's form and a signed-in person's share it.
import type { PersonaSummaryJson } from './session-types';

export function PersonaSelect(props: { label: string; personas: PersonaSummaryJson[] | null; value: string; onChange: (name: string) => void; emptyText?: string }) {
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium">{props.label}</span>
      <select className="field" value={props.value} onChange={(event) => props.onChange(event.target.value)} required disabled={!props.personas}>
        {props.emptyText && props.personas?.length === 0 && <option value="">{props.emptyText}</option>}
        {props.personas?.map((item) => (
          <option key={item.name} value={item.name}>
            {item.name}
          </option>
        ))}
      </select>
    </label>
  );
}
