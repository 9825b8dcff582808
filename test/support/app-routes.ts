// Every page and route handler of the app, as sample request paths (issue 61's tests ask the web
// table about each, and the leak corpus calls each a signed-in person reaches).
import fs from 'node:fs';
import path from 'node:path';
import { settingsSections } from '@/components/settings/settings-sections';

export interface AppRoute {
  method: string;
  /** A sample path, its [params] filled in. */
  path: string;
  /** The route file (app/…/route.ts or page.tsx), relative to the repository. */
  file: string;
}

/** `fill(param, routeFolder)` names a value for each dynamic segment; Settings' sections are one page each. */
export function everyRoute(fill: (param: string, where: string) => string): AppRoute[] {
  const found: AppRoute[] = [];
  const walk = (folder: string) => {
    for (const item of fs.readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, item.name);
      if (item.isDirectory()) walk(file);
      else if (item.name === 'route.ts' || item.name === 'page.tsx') {
        const route = path.relative('app', folder).split(path.sep).filter(Boolean);
        const sample = `/${route.map((part) => (part.startsWith('[') ? fill(part.replace(/[[\].]/g, ''), route.join('/')) : part)).join('/')}`;
        const methods = item.name === 'page.tsx' ? ['GET'] : [...fs.readFileSync(file, 'utf8').matchAll(/export const (GET|POST|PUT|PATCH|DELETE) /g)].map((match) => match[1]!);
        for (const method of methods) found.push({ method, path: sample, file });
      }
    }
  };
  walk('app');
  return found.flatMap((route) => (route.path.includes('/settings/__section__') ? settingsSections.map((section) => ({ ...route, path: route.path.replace('__section__', section.slug) })) : [route]));
}
