'use client';

// Unsaved changes warn before leaving (issue 50): a form says it has changes (`useUnsavedChanges`);
// then closing or reloading the tab asks (the browser's own prompt), and so does a click on any link
// of the app — the side navigation, the top bar, a card — before the router moves.
import { createContext, useCallback, useContext, useEffect, useRef, type ReactNode } from 'react';

const UnsavedContext = createContext<(key: string, dirty: boolean) => void>(() => undefined);

export const LEAVE_QUESTION = 'You have unsaved changes here. Leave without saving them?';

export function UnsavedChangesGuard({ children }: { children: ReactNode }) {
  const dirty = useRef(new Set<string>());
  const mark = useCallback((key: string, isDirty: boolean) => {
    if (isDirty) dirty.current.add(key);
    else dirty.current.delete(key);
  }, []);
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (dirty.current.size === 0) return;
      event.preventDefault();
      event.returnValue = '';
    };
    // Capture, on the document: before the router's own click handler sees the event.
    const click = (event: MouseEvent) => {
      if (dirty.current.size === 0 || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = event.target instanceof Element ? event.target.closest('a[href]') : null;
      if (!(anchor instanceof HTMLAnchorElement) || anchor.target === '_blank' || anchor.hasAttribute('download')) return;
      const to = new URL(anchor.href, window.location.href);
      if (to.origin !== window.location.origin || (to.pathname === window.location.pathname && to.search === window.location.search)) return;
      if (window.confirm(LEAVE_QUESTION)) {
        dirty.current.clear();
        return;
      }
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, []);
  return <UnsavedContext.Provider value={mark}>{children}</UnsavedContext.Provider>;
}

/** Tells the guard whether this form (one key per form) has changes not saved yet. */
export function useUnsavedChanges(key: string, dirty: boolean): void {
  const mark = useContext(UnsavedContext);
  useEffect(() => {
    mark(key, dirty);
    return () => mark(key, false);
  }, [key, dirty, mark]);
}
