/** What the node makes of a reply that did not fail with an error status (api/reply.ts). */
import { API_ANSWERED } from '../../nodes/BusinessCrm/errors/errors';
import {
	EMPTY_REPLY,
	EXPECTED_JSON,
	NOT_2XX_HELP,
	NOT_A_WEBSITE,
	NOT_JSON_REPLY,
	POINTS_AT_API,
} from '../../nodes/BusinessCrm/api/reply';
import { runNode } from '../helpers/harness.cjs';
import { byId, failed } from '../helpers/fixtures.cjs';
import { always, pathsOf, withApi, type ScriptedApi } from '../helpers/scripted-api.cjs';

const getBusiness = (api: ScriptedApi) =>
	runNode({
		parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
		credentials: api.credentials,
	});

describe('a reply that is not a JSON object or list is an error, never data', () => {
	const JSON_TYPE = 'application/json';
	const BUSINESS = JSON.stringify({ content: { business: { id: 'biz_from_reply' } } });
	const HTTP = `${API_ANSWERED} with HTTP`;
	const NOT_JSON = `${API_ANSWERED} 200 ${NOT_JSON_REPLY}`;

	it.each<[string, number, string | undefined, string, string, string]>([
		[
			'a 300 with a JSON body and no Location',
			300,
			JSON_TYPE,
			BUSINESS,
			`${HTTP} 300`,
			NOT_2XX_HELP,
		],
		[
			'a 302 with a JSON body and no Location',
			302,
			JSON_TYPE,
			BUSINESS,
			`${HTTP} 302`,
			NOT_2XX_HELP,
		],
		[
			'a 308 with a JSON body and no Location',
			308,
			JSON_TYPE,
			BUSINESS,
			`${HTTP} 308`,
			NOT_2XX_HELP,
		],
		[
			'JSON null',
			200,
			JSON_TYPE,
			'null',
			`${API_ANSWERED} 200 with JSON that is null, not an object or a list`,
			`Expected a JSON object or list, but the reply was null. ${POINTS_AT_API}`,
		],
		[
			'a JSON number',
			200,
			JSON_TYPE,
			'42',
			`${API_ANSWERED} 200 with JSON that is a number, not an object or a list`,
			`Expected a JSON object or list, but the reply was 42. ${POINTS_AT_API}`,
		],
		[
			'a body of only white space',
			200,
			JSON_TYPE,
			' \n\t ',
			`${API_ANSWERED} 200 ${EMPTY_REPLY}`,
			`${EXPECTED_JSON} ${NOT_A_WEBSITE}`,
		],
		[
			'HTML over several lines, shown on one',
			200,
			'text/html',
			'<p>\n\n   Sign in</p>',
			NOT_JSON,
			`Expected JSON but got content type text/html, starting "<p> Sign in</p>". ${NOT_A_WEBSITE}`,
		],
		[
			'HTML after blank lines, quoted from its first character',
			200,
			'text/html',
			'\n\n  <p>Sign in</p>',
			NOT_JSON,
			`Expected JSON but got content type text/html, starting "<p>Sign in</p>". ${NOT_A_WEBSITE}`,
		],
		[
			'text without a content type',
			200,
			undefined,
			'maintenance',
			NOT_JSON,
			`Expected JSON but got content type unknown, starting "maintenance". ${NOT_A_WEBSITE}`,
		],
	])(
		'%s: the item fails, nothing is output',
		async (_title, status, type, body, message, description) =>
			await withApi(always(status, body, type), async (api) => {
				const { items, error } = await getBusiness(api);
				expect(items).toEqual([]);
				expect(error?.name).toBe('NodeApiError');
				expect(error?.message).toBe(failed('Get business', message));
				expect(error?.description).toBe(description);
				expect(error?.context.itemIndex).toBe(0);
				expect(api.urls).toHaveLength(1);
			}),
	);
});

describe('redirect statuses', () => {
	// Literal: REDIRECT_STATUSES is a module constant, which mutation testing leaves alone.
	it('a 303 is a redirect: named, not followed', async () => {
		const moved = (host: string | undefined) => `http://${host}/moved/api/business/biz_1`;
		await withApi(
			(request, _url, response) => {
				response.writeHead(303, { location: moved(request.headers.host) });
				response.end();
			},
			async (api) => {
				const { error } = await getBusiness(api);
				expect(error?.message).toBe(
					`${failed('Get business', `${API_ANSWERED} 303`)}, redirecting to ${moved(`127.0.0.1:${api.port}`)}`,
				);
				expect(pathsOf(api)).toEqual(['/api/business/biz_1']);
			},
		);
	});
});
