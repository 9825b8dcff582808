import { PersonaEditor } from '@/components/personas/persona-editor';

export default async function PersonaPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <PersonaEditor name={decodeURIComponent(name)} />;
}
