"""Bit counts for the compiled rules of every family: one machine instruction (LLVM's ctpop)
where numba would otherwise loop."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from numba.extending import intrinsic

if TYPE_CHECKING:  # what a compiled caller sees (the intrinsic's own signature is numba's)
    def popcount(x: Any) -> Any:
        """The bits set in x (an int64 or a uint64, the count of the same type)."""
else:
    @intrinsic
    def popcount(typingctx, x):
        """The bits set in x (an int64 or a uint64, the count of the same type)."""
        def codegen(context, builder, signature, args):
            fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
            return builder.call(fn, args)
        return x(x), codegen
