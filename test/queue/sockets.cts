/**
 * Which process sent a request to a server of ours: the one holding the client end of the TCP
 * connection, read from Linux's /proc (the suite runs on Debian). Asked while the connection is
 * open (in the sandbox's onRequest hook), so the answer is what the kernel says, not a guess from
 * logs or timing.
 */
import * as fs from 'node:fs';

/** 127.0.0.1:port as /proc/net/tcp writes it (the address in host byte order, little-endian). */
function loopback(port: number): string {
	return `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The inode of the IPv4 socket from 127.0.0.1:localPort to 127.0.0.1:remotePort. */
function socketInode(localPort: number, remotePort: number): string | undefined {
	const local = loopback(localPort);
	const remote = loopback(remotePort);
	for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
		// Thousands of lines on a busy machine: split only the candidates.
		if (!line.includes(local)) continue;
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
		const fields = line.trim().split(/\s+/);
		if (fields[1] === local && fields[2] === remote) return fields[9];
	}
	return undefined;
}

/** The process group of a pid, or undefined once it is gone. */
function processGroup(pid: string): number | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return Number(after[2]);
	} catch {
		return undefined;
	}
}

function holdsSocket(pid: string, inode: string): boolean {
	const wanted = `socket:[${inode}]`;
	try {
		return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
			try {
				return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === wanted;
			} catch {
				return false; // closed while we looked
			}
		});
	} catch {
		return false;
	}
}

/**
 * The name of the process group (leader pid → name) whose process holds the client end of the
 * open connection from 127.0.0.1:clientPort to 127.0.0.1:serverPort; 'unknown' when no process
 * of those groups does (or the connection is gone).
 */
export function connectionOwner(
	clientPort: number | undefined,
	serverPort: number,
	groups: ReadonlyMap<number, string>,
): string {
	if (clientPort === undefined) return 'unknown';
	const inode = socketInode(clientPort, serverPort);
	if (inode === undefined) return 'unknown';
	// Most often the group's leader (n8n itself) holds it: look there before walking /proc.
	for (const [leader, name] of groups) if (holdsSocket(String(leader), inode)) return name;
	for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		const group = processGroup(pid);
		if (group === undefined || !groups.has(group)) continue;
		if (holdsSocket(pid, inode)) return groups.get(group) ?? 'unknown';
	}
	return 'unknown';
}
