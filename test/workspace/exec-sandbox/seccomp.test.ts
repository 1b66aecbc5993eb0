// The seccomp filter as bytes: a golden copy per architecture (any change to the program must
// be deliberate and re-checked), plus the shape every program must have.
import { describe, expect, it } from "vitest";
import { deniedSyscalls, seccompArch, seccompFilter } from "../../../src/workspace/exec-sandbox/seccomp.js";

// Checked by hand against <linux/filter.h>, <linux/seccomp.h> and the syscall tables; see seccomp.ts.
const GOLDEN_X86_64 =
  "2000000004000000150000263e0000c02000000000000000350024000000004015002200b301000015002000a500000015001f00a600000015001e009b00000015001d00a100000015001c00ac01000015001b00ad01000015001a00ae01000015001900af01000015001800b001000015001700b101000015001600ba0100001500150010010000150014003401000015001300a901000015001200aa01000015001100ab010000150010006500000015000f004101000015000e002a01000015000d004301000015000c00fa00000015000b00f800000015000a00f9000000150002002900000015000300380000001500040610000000200000001000000015000504010000002000000010000000450003020000027e20000000180000001500010012540000060000000000ff7f060000000100050006000000260005000600000000000080";
const GOLDEN_AARCH64 =
  "200000000400000015000025b70000c0200000000000000015002200b3010000150020002800000015001f002700000015001e002900000015001d003300000015001c00ac01000015001b00ad01000015001a00ae01000015001900af01000015001800b001000015001700b101000015001600ba0100001500150061000000150014000c01000015001300a901000015001200aa01000015001100ab010000150010007500000015000f001801000015000e00f100000015000d001a01000015000c00db00000015000b00d900000015000a00da00000015000200c600000015000300dc000000150004061d000000200000001000000015000504010000002000000010000000450003020000027e20000000180000001500010012540000060000000000ff7f060000000100050006000000260005000600000000000080";

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function decode(bytes: Buffer): Instruction[] {
  const out: Instruction[] = [];
  for (let at = 0; at < bytes.length; at += 8) {
    out.push({
      code: bytes.readUInt16LE(at),
      jt: bytes[at + 2]!,
      jf: bytes[at + 3]!,
      k: bytes.readUInt32LE(at + 4),
    });
  }
  return out;
}

describe("seccomp filter", () => {
  it("is byte for byte the reviewed program on x86_64", () => {
    expect(seccompFilter("x86_64").toString("hex")).toBe(GOLDEN_X86_64);
  });

  it("is byte for byte the reviewed program on aarch64", () => {
    expect(seccompFilter("aarch64").toString("hex")).toBe(GOLDEN_AARCH64);
  });

  it.each(["x86_64", "aarch64"] as const)(
    "on %s checks the architecture first and kills on a mismatch",
    (arch) => {
      const program = decode(seccompFilter(arch));
      expect(program[0]).toEqual({ code: 0x20, jt: 0, jf: 0, k: 4 }); // load seccomp_data.arch
      const check = program[1]!;
      const target = program[2 + check.jf]!;
      expect(target).toEqual({ code: 0x06, jt: 0, jf: 0, k: 0x80000000 }); // SECCOMP_RET_KILL_PROCESS
    },
  );

  it("every jump lands inside the program and it ends in returns", () => {
    for (const arch of ["x86_64", "aarch64"] as const) {
      const program = decode(seccompFilter(arch));
      program.forEach((instruction, at) => {
        if ((instruction.code & 0x07) !== 0x05) return; // BPF_JMP
        expect(at + 1 + instruction.jt).toBeLessThan(program.length);
        expect(at + 1 + instruction.jf).toBeLessThan(program.length);
      });
      expect(program.at(-1)?.code).toBe(0x06);
    }
  });

  it("refuses the mount, namespace, io_uring, ptrace, bpf and keyring calls", () => {
    expect(deniedSyscalls("x86_64")).toEqual(
      expect.arrayContaining([
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "open_tree",
        "move_mount",
        "fsopen",
      ]),
    );
    expect(deniedSyscalls("x86_64")).toEqual(
      expect.arrayContaining([
        "unshare",
        "setns",
        "io_uring_setup",
        "ptrace",
        "bpf",
        "keyctl",
        "userfaultfd",
      ]),
    );
    expect(deniedSyscalls("aarch64")).toEqual(deniedSyscalls("x86_64"));
  });

  it("knows which Node architectures it has tables for", () => {
    expect(seccompArch("x64")).toBe("x86_64");
    expect(seccompArch("arm64")).toBe("aarch64");
    expect(seccompArch("riscv64")).toBeUndefined();
  });
});
