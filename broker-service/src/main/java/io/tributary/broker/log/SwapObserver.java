package io.tributary.broker.log;

import java.nio.file.Path;

/**
 * A seam at each file operation of a clean (see {@link SegmentSwap}'s steps): the cleaner and
 * {@link CompactionHooks#swapInCleaned} call {@link #after} once the operation has returned, in the
 * order of the steps, on the cleaning thread (step 1 without the log's lock, the others under it).
 * Production code passes {@link #NONE}; a crash test passes one that stops the process at the
 * {@code n}th call, so that recovery is tried after every step of a real pass.
 *
 * <p>An observer must not touch the log (it runs inside the swap); throwing from it fails the
 * swap as a failed file operation would.
 */
@FunctionalInterface
public interface SwapObserver {

    /** Does nothing: the default everywhere but in crash tests. */
    SwapObserver NONE = (step, file) -> {};

    /** The file operations of a clean, in the order one cleaned group goes through them. */
    enum Step {
        /** Step 1: every cleaned batch written to {@code <b0>-<end>.cleaned}, not yet fsynced. */
        CLEANED_WRITTEN,
        /** Step 1: the {@code .cleaned} file fsynced and closed. */
        CLEANED_SYNCED,
        /** Step 2: renamed to {@code <b0>-<end>.swap} (the swap is decided). */
        SWAP_RENAMED,
        /** Step 2: the directory fsynced after that rename. */
        SWAP_DIRECTORY_SYNCED,
        /** Step 3: the index entries of the range replaced (and the checkpoint, on a pass's last swap). */
        INDEX_REPLACED,
        /** Step 4: one original segment file renamed to {@code <name>.deleted} (once per original). */
        ORIGINAL_RETIRED,
        /** Step 5: the {@code .swap} file renamed to {@code <b0>.log}. */
        SWAP_INSTALLED,
        /** Step 5: the directory fsynced after that rename; the swap is done on disk. */
        INSTALL_DIRECTORY_SYNCED
    }

    /** Called once {@code step} is done; {@code file} is the file it created, renamed to or synced. */
    void after(Step step, Path file);
}
