/*
 * test-launch-tag: the layout of a profiled launch's tag (engine.h).
 *
 *  - a variant's id is a tag of neither a memo entry nor a trial;
 *  - a memo entry's tag and its trials' give back the entry's id and the
 *    trial's slot at both ends of their ranges, and no two of them are
 *    equal;
 *  - the ranges fill the 64 bits: ids of KJIT__TAG_IDS entries and
 *    KJIT__TAG_SLOTS slots, no bit of one reaching another's.
 */
#include "testutil.h"

#include "engine.h"

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const uint64_t variants[] = { 0, 1, 12345, KJIT__TAG_TRIAL, KJIT__TAG_MEMO - 1 };
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
		CHECK(!kjit__tag_is_memo(variants[i]));
	OK("variant ids below bit 63 are variants' tags");

	const uint64_t ids[] = { 0, 1, 77, KJIT__TAG_IDS / 2, KJIT__TAG_IDS - 1 };
	const uint64_t slots[] = { 0, 1, 4095, KJIT__TAG_SLOTS - 2, KJIT__TAG_SLOTS - 1 };
	uint64_t seen[5 * 3]; /* each entry, its first and last trial */
	size_t n = 0;
	for (size_t i = 0; i < 5; i++) {
		uint64_t tag = kjit__tag_memo(ids[i]);
		CHECK(kjit__tag_is_memo(tag) && !kjit__tag_is_trial(tag));
		CHECK(kjit__tag_id(tag) == ids[i]);
		seen[n++] = tag;
		for (size_t j = 0; j < 5; j++) {
			uint64_t t = kjit__tag_trial(ids[i], slots[j]);
			CHECK(kjit__tag_is_memo(t) && kjit__tag_is_trial(t));
			CHECK_MSG(kjit__tag_id(t) == ids[i] && kjit__tag_slot(t) == slots[j],
			          "id %llu slot %llu: tag %llx gives id %llu slot %llu",
			          (unsigned long long)ids[i], (unsigned long long)slots[j],
			          (unsigned long long)t, (unsigned long long)kjit__tag_id(t),
			          (unsigned long long)kjit__tag_slot(t));
			if (j == 0 || j == 4)
				seen[n++] = t;
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			CHECK(seen[i] != seen[j]);
	OK("memo and trial tags: id and slot back at both ends of their ranges, all distinct");

	CHECK(KJIT__TAG_IDS << KJIT__TAG_SLOT_BITS == KJIT__TAG_TRIAL);
	CHECK(kjit__tag_trial(KJIT__TAG_IDS - 1, KJIT__TAG_SLOTS - 1) == UINT64_MAX);
	CHECK(kjit__tag_trial(0, 0) == (KJIT__TAG_MEMO | KJIT__TAG_TRIAL));
	OK("%llu entries x %llu slots fill the bits below the two flags",
	   (unsigned long long)KJIT__TAG_IDS, (unsigned long long)KJIT__TAG_SLOTS);
	return 0;
}
