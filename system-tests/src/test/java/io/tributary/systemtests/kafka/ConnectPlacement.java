package io.tributary.systemtests.kafka;

import static io.tributary.systemtests.kafka.ConnectDistributedIT.SINK_TASKS;
import static io.tributary.systemtests.kafka.ConnectDistributedIT.SOURCE_TASKS;

import io.tributary.systemtests.kafka.ConnectRest.ConnectorStatus;
import io.tributary.systemtests.kafka.ConnectRest.TaskStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Where {@code ConnectDistributedIT}'s two connectors and their tasks run, from their statuses
 * ({@code GET /connectors?expand=status}), and what the outcome writes about it: no worker ids.
 */
record ConnectPlacement(Map<String, ConnectorStatus> statuses, String source, String sink) {

    /** Both connectors and all their tasks RUNNING. */
    boolean allRunning() {
        return statuses.keySet().equals(Set.of(source, sink))
                && statuses.get(source).tasks().size() == SOURCE_TASKS
                && statuses.get(sink).tasks().size() == SINK_TASKS
                && statuses.values().stream()
                        .allMatch(c -> c.state().equals("RUNNING")
                                && c.tasks().stream().allMatch(t -> t.state().equals("RUNNING")));
    }

    /** The workers that run a connector or a task. */
    Set<String> workers() {
        Set<String> ids = new TreeSet<>();
        statuses.values().forEach(c -> {
            ids.add(c.workerId());
            c.tasks().forEach(t -> ids.add(t.workerId()));
        });
        return ids;
    }

    /** Each worker runs as many connectors and as many tasks as any other, give or take one. */
    boolean isBalanced() {
        List<Integer> connectors = workers().stream().map(this::connectorsOn).toList();
        List<Integer> tasks = workers().stream().map(this::tasksOn).toList();
        return spread(connectors) <= 1 && spread(tasks) <= 1;
    }

    String workerOf(String connector, int task) {
        return statuses.get(connector).tasks().stream()
                .filter(t -> t.id() == task)
                .map(TaskStatus::workerId)
                .findFirst()
                .orElseThrow();
    }

    String load(String workerId) {
        return connectorsOn(workerId) + " connector(s) + " + tasksOn(workerId) + " task(s)";
    }

    /** Each worker's load, sorted: no worker ids. */
    List<String> perWorker() {
        return workers().stream().map(this::load).sorted().toList();
    }

    /** Each connector's and task's state, connectors by role, tasks in id order. */
    String states(Map<String, String> roles) {
        return statuses.values().stream()
                .sorted((a, b) -> roles.get(a.name()).compareTo(roles.get(b.name())))
                .map(c -> roles.get(c.name()) + " " + c.state() + ", tasks "
                        + c.tasks().stream()
                                .sorted((a, b) -> Integer.compare(a.id(), b.id()))
                                .map(t -> t.id() + " " + t.state())
                                .toList())
                .collect(Collectors.joining("; "));
    }

    private int connectorsOn(String workerId) {
        return (int) statuses.values().stream()
                .filter(c -> c.workerId().equals(workerId))
                .count();
    }

    private int tasksOn(String workerId) {
        return (int) statuses.values().stream()
                .flatMap(c -> c.tasks().stream())
                .filter(t -> t.workerId().equals(workerId))
                .count();
    }

    private static int spread(List<Integer> counts) {
        return counts.stream().mapToInt(Integer::intValue).max().orElse(0)
                - counts.stream().mapToInt(Integer::intValue).min().orElse(0);
    }
}
