// Skills as a person manages them (issue 34): the Skills page lists the shipped skills with their
// personas, shows one's instructions, imports a zipped skill, takes a skill from a persona and
// gives it back, refuses a hostile archive with the reason, and deletes a skill after a confirm.
import { expect, test } from '@playwright/test';
import { zipSync } from 'fflate';
import { saveScreenshot } from './support/screenshots';

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nCheck the units first.\n`;

test('the Skills page: shipped skills, instructions, import a .zip, per-persona choice, a refusal, delete', async ({ page }) => {
  await page.goto('/skills');
  const skills = page.getByRole('list', { name: 'Skills' });
  for (const name of ['bug-report', 'plan-task', 'summarize-file']) await expect(skills.getByRole('listitem', { name: `Skill ${name}` })).toBeVisible();
  const plan = skills.getByRole('listitem', { name: 'Skill plan-task' });
  await expect(plan.getByRole('checkbox', { name: 'iris' })).toBeChecked();
  await plan.getByRole('button', { name: 'Show instructions' }).click();
  await expect(plan.getByLabel('Instructions of plan-task')).toContainText('Goal and done.');

  // A zipped skill, for every persona.
  const archive = zipSync({ 'convert-units/SKILL.md': new TextEncoder().encode(skillMd('convert-units', 'Convert between units, showing the factor used.')), 'convert-units/table.csv': new TextEncoder().encode('from,to,factor\nmi,km,1.609344\n') });
  await page.getByLabel('Import a skill from a zip').setInputFiles({ name: 'convert-units.zip', mimeType: 'application/zip', buffer: Buffer.from(archive) });
  const converted = skills.getByRole('listitem', { name: 'Skill convert-units' });
  await expect(converted).toContainText('Convert between units, showing the factor used.');
  await expect(converted).toContainText('table.csv');

  // Taken from one persona (its graph), given back.
  await converted.getByRole('checkbox', { name: 'wren' }).uncheck();
  await page.reload();
  await expect(skills.getByRole('listitem', { name: 'Skill convert-units' }).getByRole('checkbox', { name: 'wren' })).not.toBeChecked();
  await expect(skills.getByRole('listitem', { name: 'Skill convert-units' }).getByRole('checkbox', { name: 'iris' })).toBeChecked();
  await saveScreenshot(page, 'skills');
  await skills.getByRole('listitem', { name: 'Skill convert-units' }).getByRole('checkbox', { name: 'wren' }).check();
  await expect(skills.getByRole('listitem', { name: 'Skill convert-units' }).getByRole('checkbox', { name: 'wren' })).toBeChecked();

  // A hostile archive: refused with the reason, nothing added.
  const evil = zipSync({ 'SKILL.md': new TextEncoder().encode(skillMd('evil', 'x')), '../../escape.sh': new TextEncoder().encode('rm -rf ~') });
  await page.getByLabel('Import a skill from a zip').setInputFiles({ name: 'evil.zip', mimeType: 'application/zip', buffer: Buffer.from(evil) });
  await expect(page.getByRole('alert').filter({ hasText: 'leads outside the skill' })).toBeVisible();
  await expect(skills.getByRole('listitem', { name: 'Skill evil' })).toHaveCount(0);

  // Deleted after a confirm.
  await skills.getByRole('listitem', { name: 'Skill convert-units' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(skills.getByRole('listitem', { name: 'Skill convert-units' })).toHaveCount(0);
});
