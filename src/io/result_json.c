// SPDX-License-Identifier: MIT
#include "io/result_json.h"
#include "io/utf8.h"
#include "sim/ksim.h"
#include "sim/sample.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fixed spellings, independent of mpm_migratetype_name(): a file format. */
static const char *const mt_keys[MPM_MIGRATE_TYPES] = {
	"unmovable", "reclaimable", "movable", "reserve", "isolate",
};

#define SET(obj, key, val) json_object_set_new(obj, key, val)
#define U64(v) json_integer((json_int_t)(v))

/* A string as JSON, never refused for its bytes (utf8.h): no key is lost. */
static json_t *json_text(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;
	char *clean;

	if (j || !s)
		return j;
	clean = utf8_scrub(s);
	j = clean ? json_string(clean) : NULL;
	free(clean);
	return j;
}

static json_t *zone_json(const struct mpm_machine *m, unsigned int zid)
{
	struct mpm_zone_info zi;
	json_t *z = json_object();

	mpm_zone_info(m, zid, &zi);
	SET(z, "name", json_text(zi.name ? zi.name : mpm_zone_name(zi.type)));
	SET(z, "start_pfn", U64(zi.start_pfn));
	SET(z, "spanned", U64(zi.spanned));
	SET(z, "present", U64(zi.present));
	SET(z, "managed", U64(zi.managed));
	SET(z, "wmark_min", U64(zi.wmark_min));
	SET(z, "wmark_low", U64(zi.wmark_low));
	SET(z, "wmark_high", U64(zi.wmark_high));
	SET(z, "regions", U64(zi.nr_regions));
	SET(z, "present_regions", U64(zi.nr_present_regions));
	return z;
}

static json_t *machine_json(const struct mpm_result_input *in,
			    const struct mpm_machine *m)
{
	const struct mpm_machine_spec *sp = &in->spec->spec;
	json_t *mj = json_object(), *nodes = json_array();
	json_t *node = NULL, *zones = NULL;
	unsigned int cur = ~0u;

	SET(mj, "spec", json_text(in->machine));
	SET(mj, "description", json_text(in->spec->description));
	SET(mj, "mem_bytes", U64(mpm_total_pages(m) * MPM_PAGE_SIZE));
	SET(mj, "page_size", U64(MPM_PAGE_SIZE));
	SET(mj, "region_bytes", U64(mpm_region_pages(m) * MPM_PAGE_SIZE));
	SET(mj, "region_align", json_text(sp->region_absolute ? "absolute" : "node"));
	SET(mj, "pageblock_order", U64(mpm_pageblock_order(m)));
	SET(mj, "cpus", U64(mpm_nr_cpus(m)));
	SET(mj, "zonelist_order", json_text(mpm_zonelist_order_name(mpm_zonelist_order(m))));
	SET(mj, "min_free_kbytes", U64(mpm_min_free_kbytes(m)));
	SET(mj, "metadata_bytes", U64(mpm_metadata_bytes(m)));
	for (unsigned int zid = 0; zid < mpm_nr_zones(m); zid++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, zid, &zi);
		if (zi.node != cur) {
			cur = zi.node;
			node = json_object();
			zones = json_array();
			SET(node, "id", U64(cur));
			SET(node, "zones", zones);
			json_array_append_new(nodes, node);
		}
		json_array_append_new(zones, zone_json(m, zid));
	}
	SET(mj, "nodes", nodes);
	return mj;
}

/* The core names the features as "a,b,c"; the result lists them. */
static json_t *features_json(unsigned long features)
{
	json_t *a = json_array();
	char buf[1024], *save = NULL;

	mpm_features_string(features, buf, sizeof(buf));
	for (char *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_text(f));
	return a;
}

static json_t *sample_json(const struct mpm_sample *s)
{
	json_t *o = json_object(), *f = json_object();

	SET(o, "t", json_real(s->t));
	SET(o, "free_regions", U64(s->free_regions));
	SET(o, "used_pages", U64(s->used_pages));
	SET(o, "pcp_pages", U64(s->pcp_pages));
	for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
		SET(f, mt_keys[mt], U64(s->free_mt[mt]));
	SET(o, "free_pages", f);
	SET(o, "ideal_free_regions", U64(s->ideal_free_regions));
	SET(o, "cached_pages", U64(s->cached_pages));
	SET(o, "mixed_regions", U64(s->mixed_regions));
	return o;
}

/* The kernel model's own counters (ksim workloads only). */
static json_t *kernel_json(const struct ksim_counters *c)
{
	json_t *o = json_object();

	SET(o, "processes", U64(c->processes));
	SET(o, "threads", U64(c->threads));
	SET(o, "faults", U64(c->faults));
	SET(o, "thp_faults", U64(c->thp_faults));
	SET(o, "thp_fallbacks", U64(c->thp_fallbacks));
	SET(o, "page_table_pages", U64(c->pte_pages));
	SET(o, "mmu_gather_pages", U64(c->gather_pages));
	SET(o, "kernel_stacks", U64(c->stacks));
	SET(o, "slab_pages_allocated", U64(c->slab_pages_allocated));
	SET(o, "slab_pages_freed", U64(c->slab_pages_freed));
	SET(o, "cache_reads", U64(c->cache_reads));
	SET(o, "cache_misses", U64(c->cache_misses));
	SET(o, "cache_writes", U64(c->cache_writes));
	SET(o, "files_deleted", U64(c->files_deleted));
	SET(o, "kswapd_wakeups", U64(c->kswapd_wakeups));
	SET(o, "kswapd_runs", U64(c->kswapd_runs));
	SET(o, "kswapd_reclaimed", U64(c->kswapd_reclaimed));
	SET(o, "direct_reclaimed", U64(c->direct_reclaimed));
	SET(o, "oom_kills", U64(c->oom_kills));
	SET(o, "alloc_failures", U64(c->alloc_failures));
	SET(o, "mmap_sem_waits", U64(c->mmap_sem_waits));
	SET(o, "kmempowerd_runs", U64(c->evac_run));
	SET(o, "kmempowerd_skipped_free", U64(c->evac_skipped_free));
	SET(o, "kmempowerd_skipped_used", U64(c->evac_skipped_used));
	SET(o, "evac_pfns_scanned", U64(c->evac_scanned));
	SET(o, "bytes_copied", U64(c->migrated * 4096));
	SET(o, "evac_drained_pages", U64(c->evac_drained));
	SET(o, "kmempowerd_cpu_seconds", json_real((double)c->kmempowerd_ns / 1e9));
	return o;
}

static json_t *counters_json(const struct mpm_counters *c)
{
	json_t *o = json_object();

	/* The headline counters first, as the schema lists them. */
	SET(o, "allocs", U64(c->allocs));
	SET(o, "frees", U64(c->frees));
	SET(o, "alloc_failures", U64(c->alloc_failures));
	SET(o, "fallbacks", U64(c->fallbacks));
	SET(o, "pageblock_claims", U64(c->pageblock_claims));
	/* Region allocator, migration and evacuation arrive with v3/v4. */
	SET(o, "pa_to_ra", U64(c->pa_to_ra));
	SET(o, "ra_to_pa", U64(c->ra_to_pa));
	SET(o, "ra_cache_hits", U64(c->ra_cache_hits));
	SET(o, "ra_move_freepages", U64(c->ra_move_freepages));
	SET(o, "ra_pages", U64(c->ra_pages));
	SET(o, "ra_regions", U64(c->ra_regions));
	SET(o, "migrated", U64(c->migrated));
	SET(o, "reclaimed", U64(c->reclaimed));
	SET(o, "evacuations", U64(c->evacuations));
	SET(o, "evac_queued", U64(c->evac_queued));
	SET(o, "evac_pending", U64(c->evac_pending));
	SET(o, "evac_aborted", U64(c->evac_aborted));
	SET(o, "migrate_failed", U64(c->migrate_failed));
	SET(o, "pgalloc", U64(c->pgalloc));
	SET(o, "pgfree", U64(c->pgfree));
	SET(o, "slowpath", U64(c->slowpath));
	SET(o, "kswapd_wakeups", U64(c->kswapd_wakeups));
	SET(o, "fragmenting_fallbacks", U64(c->fragmenting_fallbacks));
	SET(o, "reserve_allocs", U64(c->reserve_allocs));
	SET(o, "region_bias_splits", U64(c->region_bias_splits));
	SET(o, "pcp_refills", U64(c->pcp_refills));
	SET(o, "pcp_drains", U64(c->pcp_drains));
	SET(o, "buddy_merges", U64(c->buddy_merges));
	SET(o, "buddy_splits", U64(c->buddy_splits));
	return o;
}

static const char *region_state(const struct mpm_region_info *ri)
{
	if (ri->nr_free == ri->present)
		return "free";
	return ri->nr_free ? "partial" : "full";
}

/* Homogeneity: the region's pageblocks per migratetype. */
static json_t *pageblocks_json(const struct mpm_machine *m, unsigned int zid, unsigned int rid)
{
	uint64_t counts[MPM_MIGRATE_TYPES];
	json_t *o = json_object();

	mpm_region_pageblocks(m, zid, rid, counts);
	for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
		SET(o, mt_keys[mt], U64(counts[mt]));
	return o;
}

static json_t *regions_json(const struct mpm_machine *m, const struct ksim *k)
{
	json_t *a = json_array();

	for (unsigned int zid = 0; zid < mpm_nr_zones(m); zid++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, zid, &zi);
		for (unsigned int rid = 0; rid < zi.nr_regions; rid++) {
			struct mpm_region_info ri;
			json_t *r;

			mpm_region_info(m, zid, rid, &ri);
			if (!ri.present)
				continue;	/* all hole: not a power domain in use */
			r = json_object();
			SET(r, "node", U64(zi.node));
			SET(r, "zone", json_text(zi.name ? zi.name : mpm_zone_name(zi.type)));
			SET(r, "id", U64(rid));
			SET(r, "start_pfn", U64(ri.start_pfn));
			SET(r, "end_pfn", U64(ri.end_pfn));
			SET(r, "present", U64(ri.present));
			SET(r, "free", U64(ri.nr_free));
			SET(r, "state", json_text(region_state(&ri)));
			SET(r, "pageblocks", pageblocks_json(m, zid, rid));
			if (ri.nr_free != ri.present) {
				struct mpm_region_usage u;
				json_t *h = json_object();

				/* who holds the pages that keep the region busy */
				mpm_region_usage(m, zid, rid, k ? k->owner_kind : NULL, &u);
				SET(h, "anon", U64(u.anon));
				SET(h, "file", U64(u.file));
				SET(h, "kernel", U64(u.kernel));
				SET(h, "pcp", U64(u.pcp));
				SET(h, "reserved", U64(u.reserved));
				SET(r, "held_by", h);
			}
			json_array_append_new(a, r);
		}
	}
	return a;
}

static json_t *states_json(const double *v)
{
	json_t *o = json_object();

	for (int s = 0; s < MPM_NR_PSTATES; s++)
		SET(o, mpm_pstate_names[s], json_real(v[s]));
	return o;
}

/* Domain-seconds of each kind of interval, and their self-refresh share. */
static json_t *uses_json(const struct mpm_power_result *p)
{
	json_t *o = json_object();

	for (int u = 0; u < MPM_NR_USES; u++) {
		json_t *e = json_object();

		SET(e, "domain_s", json_real(p->use_s[u]));
		SET(e, "self_refresh_s", json_real(p->use_sr_s[u]));
		SET(o, mpm_power_use_names[u], e);
	}
	return o;
}

/* The DRAM power model's figures for the run (docs/power-model.md). */
static json_t *power_json(const struct mpm_power_result *p, const struct mpm_power_saving *sv)
{
	json_t *o = json_object(), *pol = json_object(), *dom = json_array();

	SET(o, "memspec", json_text(p->spec.name));
	SET(o, "memspec_source", json_text(p->spec.source));
	SET(pol, "pd_timer_clk", json_real(p->policy.pd_timer_clk));
	SET(pol, "sr_timer_refi", json_real(p->policy.sr_timer_refi));
	SET(pol, "poweroff", json_boolean(p->policy.poweroff));
	SET(pol, "force", json_boolean(p->policy.force));
	SET(pol, "poweron_us", json_real(p->policy.poweron_s * 1e6));
	SET(pol, "kernel_hz", json_real(p->policy.kernel_hz));
	SET(pol, "cpu_w", json_real(p->policy.cpu_w));
	SET(pol, "regions_per_domain", U64(p->policy.group));
	SET(pol, "domains_per_region", U64(p->policy.split ? p->policy.split : 1));
	SET(pol, "interval_ms", U64(p->policy.interval_ms));
	SET(o, "controller", pol);
	/* the timers in effect: null where a state saves nothing or is off */
	SET(o, "powerdown_after_s", isfinite(p->pd_after_s) ? json_real(p->pd_after_s) : json_null());
	SET(o, "self_refresh_after_s", isfinite(p->sr_after_s) ? json_real(p->sr_after_s) :
	    json_null());
	SET(o, "domains", U64(p->nr_domains));
	SET(o, "duration_s", json_real(p->duration_s));
	SET(o, "tail_s", json_real(p->tail_s));
	SET(o, "dram_energy_j", json_real(p->dram_j));
	SET(o, "dram_avg_w", json_real(p->dram_avg_w));
	SET(o, "energy_by_state_j", states_json(p->state_j));
	SET(o, "time_by_state_s", states_json(p->state_s));
	SET(o, "by_use", uses_json(p));
	SET(o, "refresh_energy_j", json_real(p->refresh_j));
	SET(o, "access_energy_j", json_real(p->access_j));
	SET(o, "exit_energy_j", json_real(p->exit_j));
	SET(o, "pages_read", U64(p->pages_rd));
	SET(o, "pages_written", U64(p->pages_wr));
	SET(o, "lines", U64(p->lines));
	SET(o, "powerdown_exits", U64(p->pd_exits));
	SET(o, "self_refresh_exits", U64(p->sr_exits));
	SET(o, "poweron_exits", U64(p->poweron_exits));
	SET(o, "exit_latency_s", json_real(p->exit_latency_s));
	SET(o, "migration_energy_j", json_real(p->migration_j));
	SET(o, "kmempowerd_cpu_energy_j", json_real(p->kmempowerd_cpu_j));
	if (sv && sv->valid) {
		SET(o, "saving_vs_mainline_w", json_real(sv->saving_w));
		SET(o, "saving_vs_mainline_pct", json_real(sv->saving_pct));
		SET(o, "net_saving_w", json_real(sv->net_w));
		SET(o, "system_w", json_real(sv->system_w));
		SET(o, "system_share", json_real(sv->system_share));
	} else {
		SET(o, "system_share", json_null());
	}
	for (unsigned int d = 0; d < p->nr_domains; d++) {
		const struct mpm_power_domain *x = &p->domains[d];
		json_t *e = json_object();

		SET(e, "node", U64(x->node));
		SET(e, "window", U64(x->first_window));
		SET(e, "present", U64(x->present));
		SET(e, "devices", json_real(x->devices));
		SET(e, "kernel", json_boolean(x->kernel));
		SET(e, "time_by_state_s", states_json(x->state_s));
		json_array_append_new(dom, e);
	}
	SET(o, "per_domain", dom);
	return o;
}

static json_t *run_json(const struct mpm_run *run, bool with_host)
{
	const struct mpm_run_config *cfg = run->cfg;
	json_t *o = json_object(), *fr = json_object(), *series = json_array();

	SET(o, "policy", json_text(cfg->policy));
	SET(o, "features", features_json(run->features));
	/* should_evacuate_region's bound (compare --evac-threshold); null: any */
	SET(o, "evac_threshold", mpm_evac_threshold(run->m) == UINT64_MAX ?
				 json_null() : U64(mpm_evac_threshold(run->m)));
	SET(o, "workload", json_text(cfg->workload_str));
	SET(o, "seed", U64(cfg->seed));
	SET(o, "duration", json_real(cfg->duration));
	SET(o, "ops", U64(run->ops));
	SET(o, "ops_per_second", U64(run->ops_per_sec));
	SET(o, "regions_total", U64(run->regions_total));
	SET(fr, "start", U64(run->free_regions_start));
	SET(fr, "end", U64(run->free_regions_end));
	SET(fr, "min", U64(run->free_regions_min));
	SET(o, "free_regions", fr);
	SET(o, "mixed_regions_end", U64(mpm_mixed_regions(run->m)));
	for (size_t i = 0; i < run->nr_samples; i++)
		json_array_append_new(series, sample_json(&run->samples[i]));
	SET(o, "series", series);
	SET(o, "counters", counters_json(&run->counters));
	if (run->k) {
		json_t *pe = json_object();

		SET(o, "kernel", kernel_json(&run->k->c));
		SET(o, "owner_mismatches", U64(run->owner_mismatches));
		SET(o, "content_mismatches", U64(run->content_mismatches));
		SET(pe, "min", json_real(run->packing_min));
		SET(pe, "mean", json_real(run->packing_mean));
		SET(o, "packing_efficiency", pe);
		SET(o, "end_t", json_real(run->end_t));
	}
	SET(o, "regions_end", regions_json(run->m, run->k));
	if (with_host) {
		json_t *h = json_object();

		SET(h, "wall_seconds", json_real(run->wall_seconds));
		SET(h, "ops_per_wall_second",
		    json_real(run->wall_seconds > 0 ? (double)run->ops / run->wall_seconds : 0));
		SET(o, "host", h);
	}
	return o;
}

json_t *mpm_result_build(const struct mpm_result_input *in)
{
	json_t *root = json_object(), *runs = json_array();

	if (!root || !runs || !in->nr_runs) {
		json_decref(root);
		json_decref(runs);
		return NULL;
	}
	SET(root, "schema", json_text(MPM_RESULT_SCHEMA));
	SET(root, "generator", json_text("mempower " MPM_VERSION_STRING));
	SET(root, "machine", machine_json(in, in->runs[0].m));
	for (size_t i = 0; i < in->nr_runs; i++) {
		json_t *r = run_json(&in->runs[i], in->with_host);

		const struct mpm_run *run = &in->runs[i];

		/* before "host", which stays last */
		if (run->nr_power) {
			json_t *h = json_incref(json_object_get(r, "host"));

			json_object_del(r, "host");
			SET(r, "power", power_json(&run->power[0], in->saving ? &in->saving[i] : NULL));
			if (run->nr_power > 1) {
				json_t *a = json_array();

				for (unsigned int m = 1; m < run->nr_power; m++) {
					size_t k = m * in->nr_runs + i;

					json_array_append_new(a, power_json(&run->power[m],
							      in->saving ? &in->saving[k] : NULL));
				}
				SET(r, "power_other", a);
			}
			if (h)
				SET(r, "host", h);
		}
		json_array_append_new(runs, r);
	}
	SET(root, "runs", runs);
	return root;
}

int mpm_result_write_json(FILE *f, const struct mpm_result_input *in,
			  char *err, size_t errlen)
{
	json_t *root = mpm_result_build(in);
	int r;

	if (!root) {
		snprintf(err, errlen, "out of memory building the result");
		return -1;
	}
	r = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (r || fputc('\n', f) == EOF || fflush(f)) {
		snprintf(err, errlen, "cannot write the result: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int mpm_result_write_csv(FILE *f, const struct mpm_run *run,
			 char *err, size_t errlen)
{
	fputs("t,free_regions,used_pages,pcp_pages", f);
	for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
		fprintf(f, ",free_%s", mt_keys[mt]);
	fputc('\n', f);
	for (size_t i = 0; i < run->nr_samples; i++) {
		const struct mpm_sample *s = &run->samples[i];

		fprintf(f, "%.17g,%u,%llu,%llu", s->t, s->free_regions,
			(unsigned long long)s->used_pages,
			(unsigned long long)s->pcp_pages);
		for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
			fprintf(f, ",%llu", (unsigned long long)s->free_mt[mt]);
		fputc('\n', f);
	}
	if (fflush(f) || ferror(f)) {
		snprintf(err, errlen, "cannot write the CSV: %s", strerror(errno));
		return -1;
	}
	return 0;
}
