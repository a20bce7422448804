package io.tributary.coordinator.group;

import java.util.Optional;

/** The next change of an in-memory test store fails with a given reason ({@link #failNext}). */
public final class InjectedFailure {

    private Optional<OffsetStore.OffsetStoreException.Reason> failure = Optional.empty();

    /** Makes the next change fail. */
    public synchronized void failNext(OffsetStore.OffsetStoreException.Reason reason) {
        failure = Optional.of(reason);
    }

    /** Throws the injected failure once, if there is one. */
    public synchronized void maybeFail() throws OffsetStore.OffsetStoreException {
        if (failure.isPresent()) {
            OffsetStore.OffsetStoreException.Reason reason = failure.get();
            failure = Optional.empty();
            throw new OffsetStore.OffsetStoreException(reason, "injected " + reason);
        }
    }
}
