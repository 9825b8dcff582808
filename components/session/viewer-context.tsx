'use client';

// Who looks at a session page (issue 61 §3): the owner, or a signed-in person on their own session.
// Parts deep in the page (a card's footer) point a person only at pages they reach (issue 75 §8).
import { createContext, useContext } from 'react';

const AsPerson = createContext(false);

export const ViewerProvider = AsPerson.Provider;

/** True on a signed-in person's own session page. */
export function useAsPerson(): boolean {
  return useContext(AsPerson);
}
