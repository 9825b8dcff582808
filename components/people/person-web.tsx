'use client';

// Who is on the web (issue 75 §6): a person's passkeys, the browsers signed in as them and when they
// last signed in, and *Sign out everywhere* (their passkeys stay; every browser signs in again).
import { apiFetch } from '@/components/api-client';

export interface PersonWebJson {
  passkeys: { name: string; created_at: string; last_used_at: string | null }[];
  browsers: { user_agent: string; signed_in_at: string; last_seen_at: string }[];
  last_sign_in: string | null;
}

const when = (iso: string) => new Date(iso).toLocaleString();
/** "Chrome on Android" from a user agent, or its first words. */
function device(userAgent: string): string {
  const browser = /Edg\//.test(userAgent) ? 'Edge' : /Firefox\//.test(userAgent) ? 'Firefox' : /Chrome\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : null;
  const system = /Android/.test(userAgent) ? 'Android' : /iPhone|iPad/.test(userAgent) ? 'iOS' : /Mac OS X/.test(userAgent) ? 'macOS' : /Windows/.test(userAgent) ? 'Windows' : /Linux/.test(userAgent) ? 'Linux' : null;
  return browser && system ? `${browser} on ${system}` : userAgent.slice(0, 40) || 'a browser';
}

export function PersonWeb({ personId, name, web, onChanged, onError }: { personId: string; name: string; web: PersonWebJson; onChanged: () => void; onError: (message: string) => void }) {
  const signOut = async () => {
    try {
      await apiFetch(`/api/people/${encodeURIComponent(personId)}/web-sessions`, { method: 'DELETE' });
      onChanged();
    } catch (caught) {
      onError((caught as Error).message);
    }
  };
  return (
    <section aria-label={`${name} on the web`} className="mt-2" data-testid="person-web">
      <h3 className="font-medium">On the web</h3>
      {web.passkeys.length === 0 ? (
        <p className="text-zinc-500">No passkey yet: invite them below.</p>
      ) : (
        <ul className="mt-1 space-y-0.5">
          {web.passkeys.map((key) => (
            <li key={`${key.name}-${key.created_at}`}>
              Passkey “{key.name}” <span className="text-zinc-500">— made {when(key.created_at)}{key.last_used_at ? `, last used ${when(key.last_used_at)}` : ''}</span>
            </li>
          ))}
        </ul>
      )}
      {web.browsers.length > 0 && (
        <>
          <p className="mt-1">
            Signed in on {web.browsers.length} browser{web.browsers.length === 1 ? '' : 's'}
            {web.last_sign_in ? ` (last sign-in ${when(web.last_sign_in)})` : ''}: {web.browsers.map((browser) => device(browser.user_agent)).join(', ')}
          </p>
          <button type="button" onClick={() => void signOut()} className="mt-1 rounded-md border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
            Sign {name} out everywhere
          </button>
        </>
      )}
    </section>
  );
}
