// The part of irc-framework 4.14 (no bundled types) that lib/channels/irc-channel.ts uses.
declare module 'irc-framework' {
  import { EventEmitter } from 'node:events';

  export interface ConnectOptions {
    host: string;
    port: number;
    tls?: boolean;
    nick: string;
    username?: string;
    gecos?: string;
    account?: { account: string; password: string };
    auto_reconnect?: boolean;
    ping_interval?: number;
    ping_timeout?: number;
    message_max_length?: number;
    version?: string;
  }

  export interface PrivmsgEvent {
    nick: string;
    ident: string;
    hostname: string;
    target: string;
    message: string;
    account?: string;
    tags: Record<string, string>;
  }

  export class Client extends EventEmitter {
    constructor(options?: Partial<ConnectOptions>);
    user: { nick: string };
    connected: boolean;
    connect(options?: ConnectOptions): void;
    quit(message?: string): void;
    say(target: string, message: string): void;
    join(channel: string, key?: string): void;
    changeNick(nick: string): void;
    raw(...args: string[]): void;
    whois(nick: string, callback: (answer: { nick?: string; ident?: string; hostname?: string; account?: string; error?: string }) => void): void;
  }
}
