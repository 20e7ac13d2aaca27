// The async pairs of scheduled HLO dumps (all-reduce-start/-done,
// all-gather-start/-done, collective-permute-start/-done, and
// async-start/-update/-done around a called collective) made synchronous:
// each start becomes the collective itself (async-start a call of its
// computation) with the shape of the value its done gives, and the done
// and update ops pass that value on. The processes meet at the start.
#pragma once

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

bool IsAsyncDoneOpcode(Opcode op);  // all-reduce-done, ..., async-update, async-done

// Rewrites every start of `module` in place; a start read by anything but
// its done (or update) is an error naming it.
Status MakeAsyncCollectivesSynchronous(Module& module);

}  // namespace vkxla
