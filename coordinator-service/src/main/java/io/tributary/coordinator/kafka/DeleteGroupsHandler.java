package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;

/**
 * DeleteGroups (API 42), versions 0 to 3: deletes a group's committed offsets and forgets it (a
 * classic group's stored generation too). A group with members (a classic group not Empty) is
 * NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND, an empty id INVALID_GROUP_ID;
 * a store failure NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (retriable), or
 * GROUP_DELETION_FAILED. Version 3 carries the error message.
 *
 * <p>Thread-safe. A member joining between the check and the deletion keeps the group in memory
 * (its offsets are gone, as they would be a moment earlier).
 */
public final class DeleteGroupsHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.DELETE_GROUPS, 0, 3);

    private final GroupService service;

    public DeleteGroupsHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DeleteGroupsRequestData data = request.body(DeleteGroupsRequest.class).data();
        var response = new DeleteGroupsResponseData();
        for (String groupId : data.groupsNames()) {
            if (response.results().find(groupId) != null) {
                continue;
            }
            var result = new DeletableGroupResult().setGroupId(groupId);
            try {
                delete(groupId);
            } catch (GroupException e) {
                result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
            } catch (OffsetStoreException e) {
                Errors error = GroupService.storeError(e, Errors.GROUP_DELETION_FAILED);
                result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
            }
            response.results().add(result);
        }
        return new DeleteGroupsResponse(response);
    }

    private void delete(String groupId) throws OffsetStoreException {
        service.requireLeader();
        if (groupId.isEmpty()) {
            throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
        }
        if (!GroupViews.exists(service, groupId)) {
            throw new GroupException(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
        }
        service.groups().checkDeletable(groupId);
        service.streams().checkDeletable(groupId);
        if (service.classic().delete(groupId)) {
            service.flushClassicStores();
        }
        service.offsets().deleteGroup(groupId);
        service.forgetConsumerGroup(groupId);
        service.streams().forgetIfEmpty(groupId);
    }
}
