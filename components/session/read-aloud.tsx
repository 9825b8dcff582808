'use client';

// A reply read aloud (issue 76 §4) with the browser's own voices (speechSynthesis): the words stay
// in this browser — nothing is sent anywhere. Markdown's marks are left out of what is said.
import { useEffect, useState } from 'react';

/** The words of a Markdown reply as they are said: no code fences, links as their text, no marks. */
export function spokenText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' (code) ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>~|]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function ReadAloud({ text }: { text: string }) {
  const [supported, setSupported] = useState(false);
  const [speaking, setSpeaking] = useState(false);
  useEffect(() => setSupported(typeof window !== 'undefined' && 'speechSynthesis' in window), []);
  if (!supported || !text.trim()) return null;
  const toggle = () => {
    if (speaking) {
      window.speechSynthesis.cancel();
      setSpeaking(false);
      return;
    }
    window.speechSynthesis.cancel(); // one reply at a time
    const utterance = new SpeechSynthesisUtterance(spokenText(text));
    utterance.lang = document.documentElement.lang || 'en';
    utterance.onend = () => setSpeaking(false);
    utterance.onerror = () => setSpeaking(false);
    setSpeaking(true);
    window.speechSynthesis.speak(utterance);
  };
  return (
    <button type="button" className="underline" onClick={toggle} aria-pressed={speaking} title="Read this reply aloud with this browser's voices (nothing leaves the browser)">
      {speaking ? 'Stop reading' : 'Read aloud'}
    </button>
  );
}
