// What the owner sees of a person's conversations, in one line (issue 75 §5): on the invite page and
// a person's home, following the household's switch (People › *People's words stay their own*).
import { readPeoplePrivacy } from '@/lib/store/people-repository';

export async function OwnerSees() {
  const { words_stay_private: own } = await readPeoplePrivacy();
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="owner-sees">
      {own
        ? 'Your words stay yours: the owner sees that your conversations exist, what they cost and the cards you decide — not what is said.'
        : 'The owner of this assistant can read your conversations here (they can choose to keep people’s words their own).'}
    </p>
  );
}
