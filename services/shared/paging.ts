// A page of a list answer, the same shape for every list (users, managers, companies, vendors,
// approvals).
export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}
