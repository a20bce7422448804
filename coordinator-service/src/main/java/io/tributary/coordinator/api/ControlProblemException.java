package io.tributary.coordinator.api;

/** An error of the control plane's own (not a metadata command's), with its problem type. */
final class ControlProblemException extends RuntimeException {

    private final ControlProblem type;

    ControlProblemException(ControlProblem type, String detail) {
        super(detail);
        this.type = type;
    }

    ControlProblem type() {
        return type;
    }
}
