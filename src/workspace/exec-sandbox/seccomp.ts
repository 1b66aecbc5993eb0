// The seccomp filter sandboxed commands run under, built as classic BPF bytes here (no
// libseccomp, no helper binary) and handed to bwrap with `--seccomp FD`. It refuses the
// kernel features a command could use to leave or widen the sandbox: Unix sockets (host
// daemons such as docker or ssh-agent), mounts, namespaces, io_uring, ptrace, bpf, keyrings
// and TIOCSTI keystroke injection. Everything else is allowed.

/** The architectures a filter can be built for (the syscall numbers differ). */
export type SeccompArch = "x86_64" | "aarch64";

/** The seccomp architecture of a Node `process.arch`, or undefined when we have no table for it. */
export function seccompArch(nodeArch: string = process.arch): SeccompArch | undefined {
  if (nodeArch === "x64") return "x86_64";
  if (nodeArch === "arm64") return "aarch64";
  return undefined;
}

interface SyscallTable {
  /** AUDIT_ARCH_* as found in seccomp_data.arch. */
  auditArch: number;
  /** Syscall numbers at or above this are the x32 ABI (x86_64 only), refused outright. */
  x32Base?: number;
  /** Refused with EPERM whatever their arguments. */
  denied: Record<string, number>;
  clone3: number;
  socket: number;
  clone: number;
  ioctl: number;
}

// From <asm/unistd_64.h> (x86_64) and <asm-generic/unistd.h> (aarch64).
const TABLES: Record<SeccompArch, SyscallTable> = {
  x86_64: {
    auditArch: 0xc000003e,
    x32Base: 0x40000000,
    denied: {
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 272,
      setns: 308,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      ptrace: 101,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
    },
    clone3: 435,
    socket: 41,
    clone: 56,
    ioctl: 16,
  },
  aarch64: {
    auditArch: 0xc00000b7,
    denied: {
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 97,
      setns: 268,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      ptrace: 117,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
    },
    clone3: 435,
    socket: 198,
    clone: 220,
    ioctl: 29,
  },
};

const AF_UNIX = 1;
const TIOCSTI = 0x5412;
/** CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (NEWTIME shares clone's signal byte). */
const CLONE_NEW_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes and seccomp return values (<linux/filter.h>, <linux/seccomp.h>).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const RET_ALLOW = 0x7fff0000;

// Offsets into struct seccomp_data: nr, arch, then 64-bit args from 16 (low half first on
// little-endian). The kernel reads socket's domain and ioctl's request as 32-bit values, so
// checking the low half is exact; the CLONE_NEW* bits all sit in the low half too.
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

type Label = "allow" | "eperm" | "enosys" | "kill" | "socket" | "clone" | "ioctl";
/** A jump target: the next instruction, or a label resolved once the program is laid out. */
type Target = Label | "next";

type Instruction =
  | { op: "ld"; offset: number }
  | { op: "jeq" | "jge" | "jset"; k: number; jt: Target; jf: Target }
  | { op: "ret"; k: number }
  | { op: "label"; name: Label };

function program(table: SyscallTable): Instruction[] {
  const out: Instruction[] = [
    { op: "ld", offset: ARCH },
    { op: "jeq", k: table.auditArch, jt: "next", jf: "kill" },
    { op: "ld", offset: NR },
  ];
  if (table.x32Base !== undefined) out.push({ op: "jge", k: table.x32Base, jt: "kill", jf: "next" });
  // glibc falls back to clone when clone3 says ENOSYS, and clone's flags can be inspected.
  out.push({ op: "jeq", k: table.clone3, jt: "enosys", jf: "next" });
  for (const nr of Object.values(table.denied)) out.push({ op: "jeq", k: nr, jt: "eperm", jf: "next" });
  out.push(
    { op: "jeq", k: table.socket, jt: "socket", jf: "next" },
    { op: "jeq", k: table.clone, jt: "clone", jf: "next" },
    { op: "jeq", k: table.ioctl, jt: "ioctl", jf: "allow" },
    { op: "label", name: "socket" },
    { op: "ld", offset: ARG0 },
    { op: "jeq", k: AF_UNIX, jt: "eperm", jf: "allow" },
    { op: "label", name: "clone" },
    { op: "ld", offset: ARG0 },
    { op: "jset", k: CLONE_NEW_FLAGS, jt: "eperm", jf: "allow" },
    { op: "label", name: "ioctl" },
    { op: "ld", offset: ARG1 },
    { op: "jeq", k: TIOCSTI, jt: "eperm", jf: "allow" },
    { op: "label", name: "allow" },
    { op: "ret", k: RET_ALLOW },
    { op: "label", name: "eperm" },
    { op: "ret", k: RET_ERRNO | EPERM },
    { op: "label", name: "enosys" },
    { op: "ret", k: RET_ERRNO | ENOSYS },
    { op: "label", name: "kill" },
    { op: "ret", k: RET_KILL_PROCESS },
  );
  return out;
}

/** Lays the program out as struct sock_filter entries (u16 code, u8 jt, u8 jf, u32 k; little-endian). */
function assemble(instructions: Instruction[]): Buffer {
  const code = instructions.filter((i): i is Exclude<Instruction, { op: "label" }> => i.op !== "label");
  const labels = new Map<Label, number>();
  let index = 0;
  for (const instruction of instructions) {
    if (instruction.op === "label") labels.set(instruction.name, index);
    else index += 1;
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((instruction, at) => {
    const jump = (target: Target): number => {
      if (target === "next") return 0;
      const offset = labels.get(target)! - at - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp jump to ${target} out of range`);
      return offset;
    };
    const base = at * 8;
    if (instruction.op === "ld") {
      out.writeUInt16LE(LD_W_ABS, base);
      out.writeUInt32LE(instruction.offset, base + 4);
    } else if (instruction.op === "ret") {
      out.writeUInt16LE(RET_K, base);
      out.writeUInt32LE(instruction.k >>> 0, base + 4);
    } else {
      const opcode = instruction.op === "jeq" ? JEQ_K : instruction.op === "jge" ? JGE_K : JSET_K;
      out.writeUInt16LE(opcode, base);
      out.writeUInt8(jump(instruction.jt), base + 2);
      out.writeUInt8(jump(instruction.jf), base + 3);
      out.writeUInt32LE(instruction.k >>> 0, base + 4);
    }
  });
  return out;
}

/** The filter for `arch`, as the bytes bwrap's `--seccomp` reads (an array of sock_filter). */
export function seccompFilter(arch: SeccompArch): Buffer {
  return assemble(program(TABLES[arch]));
}

/** The syscalls refused with EPERM whatever their arguments, by name (for docs and tests). */
export function deniedSyscalls(arch: SeccompArch): string[] {
  return Object.keys(TABLES[arch].denied);
}
