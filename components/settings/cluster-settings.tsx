'use client';

import { ScrollX } from '@/components/ui/scroll-x';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';

interface ClusterJson {
  clustered: boolean;
  members: { name: string; capacity: number; sessions: number; last_heartbeat: string; joined_at: string; version: string | null }[];
  moves: { session_id: string; from: string | null; to: string; reason: string; at: string }[];
  /** This process's version, and the unfinished runs of another one with what the app will do (issue 60). */
  version?: string;
  waiting_runs?: { run_id: string; name: string; version: string; holder: string; plan: string }[];
}

const reasons: Record<string, string> = { new: 'placed', rebalance: 'rebalanced', left: 'its process stopped', dead: 'its process died' };

function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return seconds < 90 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

/** Settings › Cluster: the processes sharing the sessions, their load, and the moves of the last hour (issue 31). */
export function ClusterSettings() {
  const [view, setView] = useState<ClusterJson | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    let live = true;
    const load = () =>
      apiFetch<ClusterJson>('/api/cluster').then(
        (json) => live && (setView(json), setNow(Date.now()), setError(null)),
        (caught: Error) => live && setError(caught.message),
      );
    void load();
    const timer = setInterval(load, 5_000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  return (
    <section aria-labelledby="cluster-heading" className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="cluster-heading" className="text-lg font-semibold">
        Cluster
      </h2>
      {error && <ErrorBanner message={error} />}
      {view && !view.clustered && (
        <p className="text-sm text-zinc-500">
          One process: every session&apos;s mind runs here. Start more processes (<code>npm run worker</code>) on the same PostgreSQL and they share the
          sessions.
        </p>
      )}
      {view?.clustered && (
        <>
          <ScrollX label="Cluster members (table)">
            <table className="w-full text-sm" aria-label="Cluster members">
              <thead className="text-left text-zinc-500">
                <tr>
                  <th className="font-normal">Process</th>
                  <th className="font-normal">Capacity</th>
                  <th className="font-normal">Active sessions</th>
                  <th className="font-normal">Heartbeat</th>
                  <th className="font-normal">Version</th>
                </tr>
              </thead>
              <tbody>
                {view.members.map((member) => (
                  <tr key={member.name}>
                    <td className="font-mono">{member.name}</td>
                    <td>{member.capacity}</td>
                    <td>{member.sessions}</td>
                    <td>{ago(member.last_heartbeat, now)}</td>
                    <td className="font-mono text-xs">{member.version ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollX>
          {(view.waiting_runs?.length ?? 0) > 0 && (
            <>
              <h3 className="text-sm font-medium">Runs of another version ({view.waiting_runs!.length})</h3>
              <ul className="space-y-0.5 text-xs" aria-label="Runs of another version">
                {view.waiting_runs!.map((run) => (
                  <li key={run.run_id}>
                    <span className="font-mono">{run.run_id.slice(0, 8)}</span> ({run.name}, version <span className="font-mono">{run.version}</span>): {run.plan}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h3 className="text-sm font-medium">Moves in the last hour ({view.moves.length})</h3>
          {view.moves.length === 0 ? (
            <p className="text-sm text-zinc-500">None.</p>
          ) : (
            <ul className="max-h-48 space-y-0.5 overflow-y-auto text-xs" aria-label="Session moves">
              {view.moves.slice(0, 50).map((move, index) => (
                <li key={`${move.session_id}-${move.at}-${index}`}>
                  <span className="text-zinc-500">{ago(move.at, now)}</span>{' '}
                  <Link className="font-mono underline" href={`/sessions/${move.session_id}`}>
                    {move.session_id.slice(0, 8)}
                  </Link>{' '}
                  {reasons[move.reason] ?? move.reason}: {move.from ?? '—'} → {move.to}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
